-- reads: qrels_by_set, ranked_entries
-- produces: mem_relevance (run_id, topic_id, rank, intent_id)
-- grain: run_id, topic_id, rank, intent_id
-- params: $campaign_id, $depth, $runs, $judgment_set
-- mem_relevance: one row per (run_id, topic_id, rank, intent_id) where the document a run ranks
-- at `rank` <= $depth (trec ordering) is relevant (level > 0) to the intent; ad hoc qrels give
-- intent_id = ''. The maximum-entropy method (pyeval/resampling/mem.py; Ashkan & Clarke, WWW 2011)
-- reads its binary per-intent relevance from here, judged by the judgment set $judgment_set
-- (docs/judgments.md).
-- Reads: ranked_entries, qrels. Parameters: $campaign_id, $depth, $runs (list of run ids), $judgment_set.
with ranked as (
    select run_id, topic_id, rank, doc_id
    from ranked_entries
    where campaign_id = $campaign_id and ordering = 'trec' and rank <= $depth and list_contains($runs, run_id)
),

relevant as (
    select topic_id, intent_id, doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set and level > 0
),

relevant_at_rank as (
    select ranked.run_id, ranked.topic_id, ranked.rank, relevant.intent_id
    from ranked
    inner join relevant on ranked.topic_id = relevant.topic_id and ranked.doc_id = relevant.doc_id
)

select * from relevant_at_rank
order by run_id, topic_id, rank, intent_id
