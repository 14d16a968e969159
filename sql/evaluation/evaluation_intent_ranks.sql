-- reads: evaluation_ranks, qrels_by_set
-- produces: evaluation_intent_ranks (run_id, topic_id, rank, intent_id, level)
-- grain: run_id, topic_id, rank, intent_id
-- params: $campaign_id, $judgment_set
-- evaluation_intent_ranks: one row per (run_id, topic_id, rank, intent_id) of a ranked document
-- judged for an intent: the document's level for that intent (diversity qrels; empty for an ad
-- hoc campaign). Effective precision reads it.
select
    evaluation_ranks.run_id,
    evaluation_ranks.topic_id,
    evaluation_ranks.rank,
    qrels_by_set.intent_id,
    qrels_by_set.level
from evaluation_ranks
inner join qrels_by_set
    on
        qrels_by_set.campaign_id = $campaign_id
        and qrels_by_set.judgment_set = $judgment_set
        and qrels_by_set.intent_id <> ''
        and evaluation_ranks.topic_id = qrels_by_set.topic_id
        and evaluation_ranks.doc_id = qrels_by_set.doc_id
