-- reads: evaluation_nugget_pairs, nugget_assignments, nuggets
-- produces: evaluation_nugget_labels (run_id, topic_id, nugget_id, importance, label)
-- grain: run_id, topic_id, nugget_id
-- params: $campaign_id, $judgment_set
-- evaluation_nugget_labels: every label the assignment set $judgment_set gives a nugget of its bank
-- for the answer of a scored, answered (run, topic) (evaluation_nugget_pairs): support,
-- partial_support or not_support, with the nugget's importance. A nugget of the bank the set gives
-- no label (a nugget the assessor did not label) has no row and counts as not_support; so do the
-- labels of an unanswered topic (nuggetizer's placeholder for it: an empty answer), which scores 0:
-- the nugget scores of sql/metrics/metric_nuggets.sql divide by the topic's nuggets in the bank
-- (evaluation_nugget_pairs), as nuggetizer's calculate_nugget_scores divides by the nuggets of
-- its record (docs/rag.md).
with assigned as (
    select
        bank,
        run_id,
        topic_id,
        nugget_id,
        label
    from nugget_assignments
    where campaign_id = $campaign_id and judgment_set = $judgment_set
)

select
    assigned.run_id,
    assigned.topic_id,
    assigned.nugget_id,
    nuggets.importance,
    assigned.label
from assigned
inner join nuggets
    on
        nuggets.campaign_id = $campaign_id
        and assigned.bank = nuggets.bank
        and assigned.topic_id = nuggets.topic_id
        and assigned.nugget_id = nuggets.nugget_id
semi join evaluation_nugget_pairs
    on
        assigned.run_id = evaluation_nugget_pairs.run_id
        and assigned.topic_id = evaluation_nugget_pairs.topic_id
        and evaluation_nugget_pairs.answered
