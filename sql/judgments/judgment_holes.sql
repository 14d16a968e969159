-- reads: qrels_by_set, ranked_entries
-- produces: judgment_holes (topic_id, doc_id, best_rank, runs)
-- grain: topic_id, doc_id
-- params: $campaign_id, $judgment_set, $depth, $runs
-- judgment_holes: the hole list of a judgment set: every document a run of $runs (all the
-- campaign's runs when empty) retrieved at rank <= $depth (trec_eval's ordering, view
-- ranked_entries) that the set $judgment_set does not judge (no qrels row with a level >= 0 for
-- the topic, any intent): what a judge is asked to fill (UMBRELA's holes). best_rank: its best
-- rank over the runs; runs: how many runs retrieved it that deep. docs/judgments.md section 3.
with judged as (
    select distinct topic_id, doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set and level >= 0
),

judged_topics as (
    select distinct topic_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = 'official'
)

select
    ranked_entries.topic_id,
    ranked_entries.doc_id,
    min(ranked_entries.rank) as best_rank,
    count(distinct ranked_entries.run_id) as runs
from ranked_entries
inner join judged_topics on ranked_entries.topic_id = judged_topics.topic_id
where
    ranked_entries.campaign_id = $campaign_id
    and ranked_entries.ordering = 'trec'
    and ranked_entries.rank <= $depth
    and (len($runs) = 0 or list_contains($runs, ranked_entries.run_id))
    and not exists (
        select 1
        from judged
        where judged.topic_id = ranked_entries.topic_id and judged.doc_id = ranked_entries.doc_id
    )
group by ranked_entries.topic_id, ranked_entries.doc_id
