-- reads: diversity_judgments, intent_weights
-- produces: evaluation_intents (probs, topic_id, intent_id, probability, intent_type, num_rel)
-- grain: probs, topic_id, intent_id
-- params: $campaign_id, $variants, $judgment_set
-- evaluation_intents: one row per (probs, topic_id, intent_id) of the evaluated campaign: the
-- intent's probability under each probability variant the evaluation uses, its type (inf |
-- nav) and its relevant documents (num_rel; I-rec's n+ counts the intents with num_rel > 0).
-- An ad hoc campaign has one intent per topic (intent_weights). Composite families (intent_average, effective_precision) read it.
-- Reads: intent_weights, diversity_judgments. Parameters: $campaign_id, $variants (probability variants).
with relevant as (
    select
        topic_id,
        intent_id,
        count(distinct doc_id) as num_rel
    from diversity_judgments
    where campaign_id = $campaign_id and judgment_set = $judgment_set and level >= 1
    group by topic_id, intent_id
)

select
    intent_weights.probs,
    intent_weights.topic_id,
    intent_weights.intent_id,
    intent_weights.probability,
    intent_weights.intent_type,
    coalesce(relevant.num_rel, 0) as num_rel
from intent_weights
left join relevant
    on intent_weights.topic_id = relevant.topic_id and intent_weights.intent_id = relevant.intent_id
where
    intent_weights.campaign_id = $campaign_id
    and intent_weights.judgment_set = $judgment_set
    and list_contains($variants, intent_weights.probs)
