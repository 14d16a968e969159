-- reads: evaluation_ranks, qrels
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
    qrels.intent_id,
    qrels.level
from evaluation_ranks
inner join qrels
    on
        qrels.campaign_id = $campaign_id
        and qrels.judgment_set = $judgment_set
        and qrels.intent_id <> ''
        and evaluation_ranks.topic_id = qrels.topic_id
        and evaluation_ranks.doc_id = qrels.doc_id
