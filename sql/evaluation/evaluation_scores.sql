-- reads: evaluation_values, requested_order
-- produces: evaluation_scores (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- evaluation_scores: the numeric per-topic values of an evaluation (what is stored in
-- topic_scores and what sql/evaluation/means.sql combines); text-valued measures (RelString,
-- requested_order.storable false) are left out.
select
    evaluation_values.run_id,
    evaluation_values.topic_id,
    evaluation_values.measure,
    evaluation_values.value
from evaluation_values
inner join requested_order on evaluation_values.measure = requested_order.measure
where requested_order.storable
