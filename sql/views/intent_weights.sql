-- reads: diversity_judgments, intent_variants, intents_by_set
-- produces: intent_weights (campaign_id, judgment_set, probs, topic_id, intent_id, probability, intent_type)
-- grain: campaign_id, judgment_set, probs, topic_id, intent_id
-- params: none
-- intent_weights: one row per (campaign_id, probs, topic_id, intent_id): the intent probability
-- Pr(i|q) under each probability variant of the campaign, with the intent's type. probs =
-- 'given' is the intents table as loaded (NTCIREVAL uses probabilities as given, never
-- renormalised); the other variants are the campaign's stored rows of intent_variants (loaded
-- from a file, or generated uniform or non-uniform: `pyeval intents`). A variant lists only
-- intents the campaign's intents table lists; their types are the table's. An ad hoc campaign
-- has one intent per judged topic, intent_id '' of probability 1 and type inf under 'given' (its
-- topic read as one intent, as ndeval reads ad hoc qrels: view diversity_judgments).
-- Reads: intents, intent_variants, diversity_judgments. Reference: docs/diversity-measures.md sections 1.1 and 1.2.
select
    campaign_id,
    judgment_set,
    'given' as probs,
    topic_id,
    intent_id,
    probability,
    intent_type
from intents_by_set

union all

select
    intent_variants.campaign_id,
    intents_by_set.judgment_set,
    intent_variants.variant as probs,
    intent_variants.topic_id,
    intent_variants.intent_id,
    intent_variants.probability,
    intents_by_set.intent_type
from intent_variants
inner join intents_by_set
    on
        intent_variants.campaign_id = intents_by_set.campaign_id
        and intent_variants.topic_id = intents_by_set.topic_id
        and intent_variants.intent_id = intents_by_set.intent_id

union all

select distinct
    campaign_id,
    judgment_set,
    'given' as probs,
    topic_id,
    intent_id,
    1.0 as probability,
    'inf' as intent_type
from diversity_judgments
where intent_id = ''
