-- reads: driver_topics, intent_weights, qrels_by_set
-- produces: ndeval_intents (topic_no, topic_id, intent_id, intent_no, relevant, weight)
-- grain: topic_no, intent_no
-- params: $campaign_id, $rel, $probs, $judgment_set
-- ndeval_intents: the intents of each judged topic that have a relevant document (level >= $rel),
-- numbered 0.. per topic in ndeval's order (numeric subtopic ids by value, others after them in
-- byte order), with R_s (relevant judgments) and the weight the measures use: the campaign's
-- Pr(i|q) of probability variant $probs ('given': the intents table; view intent_weights) for a
-- topic the variant has (0 for an intent it lacks), else null: uniform 1/N, as ndeval (always
-- under $probs = 'ndeval', which no variant is called).
-- Reference: docs/diversity-measures.md section 7 (N, R_s, subtopic order).
with positive as (
    select
        topic_id,
        intent_id,
        count(*) as relevant
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set and level >= $rel
    group by topic_id, intent_id
),

given as (
    select
        topic_id,
        intent_id,
        probability
    from intent_weights
    where campaign_id = $campaign_id and judgment_set = $judgment_set and probs = $probs
),

given_topics as (
    select distinct topic_id
    from given
)

select
    driver_topics.topic_no,
    positive.topic_id,
    positive.intent_id,
    (row_number() over (
        partition by positive.topic_id
        order by try_cast(positive.intent_id as bigint) asc nulls last, positive.intent_id asc
    ) - 1)::integer as intent_no,
    positive.relevant,
    case
        when given_topics.topic_id is not null
            then coalesce(given.probability, 0.0)
    end as weight
from positive
inner join driver_topics on positive.topic_id = driver_topics.topic_id
left join given on positive.topic_id = given.topic_id and positive.intent_id = given.intent_id
left join given_topics on positive.topic_id = given_topics.topic_id
