-- reads: evaluation_nugget_pairs, nugget_assignments, nuggets
-- produces: evaluation_nugget_labels (run_id, topic_id, nugget_id, importance, label)
-- grain: run_id, topic_id, nugget_id
-- params: $campaign_id, $judgment_set
-- evaluation_nugget_labels: for every scored (run, topic) (evaluation_nugget_pairs) and every nugget
-- of the topic in the bank of the assignment set $judgment_set, the label the set gives it for the
-- run's answer: support, partial_support or not_support; not_support where the set assigns the
-- nugget no label (an unanswered topic, a nugget the assessor did not label). The nugget scores of
-- sql/metrics/metric_nuggets.sql divide by the topic's nuggets in the bank, as nuggetizer's
-- calculate_nugget_scores divides by the nuggets of its record (docs/rag.md).
with assigned as (
    select
        bank,
        run_id,
        topic_id,
        nugget_id,
        label
    from nugget_assignments
    where campaign_id = $campaign_id and judgment_set = $judgment_set
),

bank_nuggets as (
    select
        nuggets.topic_id,
        nuggets.nugget_id,
        nuggets.importance
    from nuggets
    where
        nuggets.campaign_id = $campaign_id
        and nuggets.bank in (select distinct assigned.bank from assigned)
)

select
    evaluation_nugget_pairs.run_id,
    evaluation_nugget_pairs.topic_id,
    bank_nuggets.nugget_id,
    bank_nuggets.importance,
    coalesce(assigned.label, 'not_support') as label
from evaluation_nugget_pairs
inner join bank_nuggets on evaluation_nugget_pairs.topic_id = bank_nuggets.topic_id
left join assigned
    on
        evaluation_nugget_pairs.run_id = assigned.run_id
        and bank_nuggets.topic_id = assigned.topic_id
        and bank_nuggets.nugget_id = assigned.nugget_id
