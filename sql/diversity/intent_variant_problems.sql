-- reads: intents_by_set, new_variant
-- produces: intent_variant_problems (topic_id, intent_id)
-- grain: topic_id, intent_id
-- params: $campaign_id
-- intent_variant_problems: the first intent of a probability variant that the campaign's
-- intents table does not list (a variant changes probabilities, never the intents).
-- Reads: new_variant(topic_id, intent_id, probability), intents. Parameters: $campaign_id.
select
    new_variant.topic_id,
    new_variant.intent_id
from new_variant
left join intents_by_set
    on
        intents_by_set.campaign_id = $campaign_id
        and intents_by_set.judgment_set = 'official'
        and new_variant.topic_id = intents_by_set.topic_id
        and new_variant.intent_id = intents_by_set.intent_id
where intents_by_set.intent_id is null
order by new_variant.topic_id, new_variant.intent_id
limit 1
