-- reads: diversity_judgments, evaluation_ranks
-- produces: evaluation_intent_ranks (run_id, topic_id, rank, intent_id, level)
-- grain: run_id, topic_id, rank, intent_id
-- params: $campaign_id, $judgment_set
-- evaluation_intent_ranks: one row per (run_id, topic_id, rank, intent_id) of a ranked document
-- judged for an intent: the document's level for that intent (diversity_judgments: an ad hoc
-- campaign's topic is one intent, ''). Effective precision reads it.
select
    evaluation_ranks.run_id,
    evaluation_ranks.topic_id,
    evaluation_ranks.rank,
    diversity_judgments.intent_id,
    diversity_judgments.level
from evaluation_ranks
inner join diversity_judgments
    on
        diversity_judgments.campaign_id = $campaign_id
        and diversity_judgments.judgment_set = $judgment_set
        and evaluation_ranks.topic_id = diversity_judgments.topic_id
        and evaluation_ranks.doc_id = diversity_judgments.doc_id
