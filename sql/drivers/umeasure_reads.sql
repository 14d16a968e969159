-- reads: document_lengths, driver_entries, intent_gain_values, intent_weights, qrels_by_set
-- produces: umeasure_reads (list_no, rank, doc_id, intent_id, level, gain, weight, length)
-- grain: list_no, rank, intent_id
-- params: $campaign_id, $probs, $depth, $profile, $judgment_set
-- umeasure_reads: one row per (list, rank, intent) where the ranked document, within the top
-- $depth, is relevant to the intent (level >= 1): its level, its gain for the intent under gain
-- profile $profile (view intent_gain_values, where every profile's gains are defined), the
-- intent's weight and the document's length (null when document_lengths lacks it). Ordered by
-- list, rank, intent.
-- Weights: Pr(i|q) of probability variant $probs ('given': the intents table; view
-- intent_weights) for a topic the variant has (0 for an intent it lacks), else 1/n over the n
-- intents the topic's qrels list (any level).
-- Ad hoc qrels are one intent (''), weight 1.
-- Reference: docs/diversity-measures.md section 9 (D-U, U-IA, the trailtext).
with listed as (
    select
        topic_id,
        count(distinct intent_id) as intents
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
    group by topic_id
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
    driver_entries.list_no,
    driver_entries.rank,
    driver_entries.doc_id,
    qrels_by_set.intent_id,
    qrels_by_set.level,
    intent_gain_values.gain,
    case
        when given_topics.topic_id is not null
            then coalesce(given.probability, 0.0)
        else 1.0 / listed.intents
    end as weight,
    document_lengths.length
from driver_entries
inner join qrels_by_set
    on
        qrels_by_set.campaign_id = $campaign_id
        and qrels_by_set.judgment_set = $judgment_set
        and driver_entries.topic_id = qrels_by_set.topic_id
        and driver_entries.doc_id = qrels_by_set.doc_id
        and qrels_by_set.level >= 1
inner join listed on qrels_by_set.topic_id = listed.topic_id
inner join intent_gain_values
    on
        intent_gain_values.campaign_id = $campaign_id
        and intent_gain_values.judgment_set = $judgment_set
        and intent_gain_values.profile = $profile
        and qrels_by_set.topic_id = intent_gain_values.topic_id
        and qrels_by_set.intent_id = intent_gain_values.intent_id
        and qrels_by_set.level = intent_gain_values.level
left join given on qrels_by_set.topic_id = given.topic_id and qrels_by_set.intent_id = given.intent_id
left join given_topics on qrels_by_set.topic_id = given_topics.topic_id
left join document_lengths
    on document_lengths.campaign_id = $campaign_id and driver_entries.doc_id = document_lengths.doc_id
where driver_entries.rank <= $depth
order by driver_entries.list_no, driver_entries.rank, qrels_by_set.intent_id
