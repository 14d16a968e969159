-- reads: diversity_judgments, intent_weights, qrels_by_set
-- produces: evaluation_intent_judgments (topic_id, source_topic_id, intent_id, doc_id, level)
-- grain: topic_id, doc_id
-- params: $campaign_id, $separator, $judgment_set
-- per_intent_judgments (temp table evaluation_intent_judgments): the per-intent staging of a
-- campaign (an ad hoc campaign's topic is one intent, '': diversity_judgments), where each (topic, listed intent) is one ranked-list "topic" (its topic_id
-- is topic || $separator || intent) judged on the intent's own levels: every document judged for
-- the topic, at its level for the intent (0 when judged for other intents only; negative TREC
-- levels, -2 spam, as 0). Intent-aware measures, I-rec and P+Q compute an ad hoc measure on
-- each such list (docs/diversity-measures.md section 6.1: the intent's local ideal list).
with judged as (
    select distinct
        topic_id,
        doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
),

listed as (
    select
        topic_id,
        intent_id
    from intent_weights
    where campaign_id = $campaign_id and judgment_set = $judgment_set and probs = 'given'
),

levels as (
    select
        topic_id,
        intent_id,
        doc_id,
        max(level) as level
    from diversity_judgments
    where campaign_id = $campaign_id and judgment_set = $judgment_set
    group by topic_id, intent_id, doc_id
)

select
    listed.topic_id || $separator || listed.intent_id as topic_id,
    listed.topic_id as source_topic_id,
    listed.intent_id,
    judged.doc_id,
    greatest(coalesce(levels.level, 0), 0) as level
from judged
inner join listed on judged.topic_id = listed.topic_id
left join levels
    on
        listed.topic_id = levels.topic_id
        and listed.intent_id = levels.intent_id
        and judged.doc_id = levels.doc_id
