-- reads: qrels_by_set
-- produces: mem_topic_relevant (topic_id, intent_id, relevant, relevant_any)
-- grain: topic_id, intent_id
-- params: $campaign_id, $judgment_set
-- mem_topic_relevant: one row per (topic_id, intent_id) of a campaign with relevant documents:
-- relevant = R^j, the documents judged relevant (level > 0) to the intent, and
-- relevant_any = R, the documents relevant to any intent of the topic. The intents of a topic
-- (M, weighted 1/M) are those listed here (ndeval's N: subtopics with a positive judgment).
-- $judgment_set: the judgment set whose qrels are read (docs/judgments.md).
with relevant as (
    select topic_id, intent_id, doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set and level > 0
),

per_intent as (
    select topic_id, intent_id, count(distinct doc_id) as relevant
    from relevant
    group by topic_id, intent_id
),

per_topic as (
    select topic_id, count(distinct doc_id) as relevant_any
    from relevant
    group by topic_id
)

select per_intent.topic_id, per_intent.intent_id, per_intent.relevant, per_topic.relevant_any
from per_intent
inner join per_topic on per_intent.topic_id = per_topic.topic_id
order by per_intent.topic_id, per_intent.intent_id
