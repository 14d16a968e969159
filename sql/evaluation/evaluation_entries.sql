-- reads: qrels_by_set, ranked_entries
-- produces: evaluation_entries (run_id, topic_id, rank, doc_id, score, list_rank, max_level)
-- grain: run_id, topic_id, rank
-- params: $campaign_id, $ordering, $runs, $all_runs, $max_depth, $judged_only, $negative_is_judged, $judgment_set
-- evaluation_entries: the one ranked-and-cut stage. The pooled documents (those with a qrels row
-- for the topic, any intent) of every ranked list of one evaluation, in the order of $ordering
-- (view ranked_entries), after the depth cut (trec_eval -M: ranks beyond $max_depth dropped)
-- and then, with $judged_only (trec_eval -J), without the unjudged ones, ranks renumbered 1..n
-- in order; list_rank keeps the rank in the whole list. A list's unpooled documents only occupy
-- ranks. max_level: the highest level of any qrels row of the document (for ad hoc qrels, its
-- level). Unjudged: every level negative (TREC -2: pooled but unjudged, as trec_eval and ndeval
-- read it), unless $negative_is_judged (the diversity stagings, which read every document of
-- the qrels as judged, as NTCIREVAL does). Every staging's ranks are made from here: ad hoc
-- (evaluation_ranks), global and per-intent (pyeval/diversity) and the Python families'
-- (sql/drivers/driver_entries.sql).
-- $all_runs: $runs are every run of the campaign (the orchestrator resolved them), so its rows
-- need no filter by run (a filter by a list of every run costs a join over the campaign's rows).
-- Reference: trec_eval 10.0 form_res_rels.c (depth cut, then -J); docs/measures.md "Conventions".
with pooled as (
    select
        topic_id,
        doc_id,
        max(level) as max_level
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
    group by topic_id, doc_id
),

cut as (
    select
        ranked_entries.run_id,
        ranked_entries.topic_id,
        ranked_entries.rank,
        ranked_entries.doc_id,
        ranked_entries.score,
        pooled.max_level
    from ranked_entries
    inner join pooled
        on ranked_entries.topic_id = pooled.topic_id and ranked_entries.doc_id = pooled.doc_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and ($all_runs or list_contains($runs, ranked_entries.run_id))
        and ranked_entries.rank <= $max_depth
)

select
    run_id,
    topic_id,
    case
        when $judged_only then row_number() over (partition by run_id, topic_id order by rank)
        else rank
    end as rank,
    doc_id,
    score,
    rank as list_rank,
    max_level
from cut
where not $judged_only or $negative_is_judged or max_level >= 0
