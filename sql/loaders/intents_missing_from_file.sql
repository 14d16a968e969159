-- reads: intent_input, qrels_by_set
-- produces: intents_missing_from_file (topic_id, intent_id)
-- grain: topic_id, intent_id
-- params: $campaign_id, $judgment_set
-- intents_missing_from_file: intents judged relevant in the campaign's qrels, for topics the
-- intents file covers, that the file does not list (NTCIREVAL would write a malformed derived
-- file for them; pyeval refuses). First topic and intent in byte order.
-- Reads: qrels, intent_input. Parameters: $campaign_id.
with covered_topics as (
    select distinct topic_id
    from intent_input
),

judged_intents as (
    select distinct qrels_by_set.topic_id, qrels_by_set.intent_id
    from qrels_by_set
    inner join covered_topics on qrels_by_set.topic_id = covered_topics.topic_id
    where qrels_by_set.campaign_id = $campaign_id and qrels_by_set.judgment_set = $judgment_set and qrels_by_set.level > 0 and qrels_by_set.intent_id <> ''
)

select judged_intents.topic_id, judged_intents.intent_id
from judged_intents
left join intent_input
    on
        judged_intents.topic_id = intent_input.topic_id
        and judged_intents.intent_id = intent_input.intent_id
where intent_input.intent_id is null
order by judged_intents.topic_id, judged_intents.intent_id
limit 1
