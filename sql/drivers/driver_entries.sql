-- driver_entries: the pooled documents (those with a qrels row for the topic, any intent) of
-- every list of driver_lists, with their rank under one ordering, after the depth cut (and with
-- judged_only, without unjudged documents, ranks renumbered 1..n). A list's other documents
-- only occupy ranks, which `rank` keeps. A document is judged when a qrels row of the topic
-- gives it a level >= 0.
-- Reads: run_entries, qrels, driver_lists.
-- Parameters: $campaign_id, $ordering ('trec' | 'trec-asc' | 'rank' | 'file'), $max_depth, $judged_only.
-- Orderings as the view ranked_entries (formats.md section 4): 'trec' reads the rank stored on
-- load and looks at pooled documents only; 'trec-asc' (score desc, docno asc), 'rank' (rank
-- column, then file order) and 'file'
-- number every entry of the evaluated runs first.
-- Reference: formats.md section 4 (orderings); trec_eval -M and -J (depth cut first).
with pooled as (
    select
        topic_id,
        doc_id,
        max(level) >= 0 as judged
    from qrels
    where campaign_id = $campaign_id
    group by topic_id, doc_id
),

listed as (
    select
        driver_lists.list_no,
        driver_lists.topic_no,
        run_entries.topic_id,
        run_entries.doc_id,
        run_entries.rank_given,
        run_entries.file_position,
        run_entries.score,
        run_entries.trec_rank
    from run_entries
    inner join driver_lists
        on run_entries.run_id = driver_lists.run_id and run_entries.topic_id = driver_lists.topic_id
    where run_entries.campaign_id = $campaign_id
),

positioned as (
    select
        list_no,
        topic_no,
        topic_id,
        doc_id,
        trec_rank as rank
    from listed
    where $ordering = 'trec'

    union all

    select
        list_no,
        topic_no,
        topic_id,
        doc_id,
        row_number() over (partition by list_no order by score desc, doc_id asc) as rank
    from listed
    where $ordering = 'trec-asc'

    union all

    select
        list_no,
        topic_no,
        topic_id,
        doc_id,
        row_number() over (partition by list_no order by rank_given asc, file_position asc) as rank
    from listed
    where $ordering = 'rank'

    union all

    select
        list_no,
        topic_no,
        topic_id,
        doc_id,
        row_number() over (partition by list_no order by file_position asc) as rank
    from listed
    where $ordering = 'file'
)

select
    positioned.list_no,
    positioned.topic_no,
    positioned.topic_id,
    case
        when $judged_only then row_number() over (partition by positioned.list_no order by positioned.rank)
        else positioned.rank
    end::integer as rank,
    positioned.doc_id
from positioned
inner join pooled on positioned.topic_id = pooled.topic_id and positioned.doc_id = pooled.doc_id
where positioned.rank <= $max_depth and (not $judged_only or pooled.judged)
