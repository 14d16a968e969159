-- reads: evaluation_measures, evaluations, measures, topic_scores
-- writes: current_scores
-- params: $id
-- current_scores_of_evaluation: the per-topic values evaluation $id stored, which are the current
-- values of their keys (an evaluation just stored is the latest, and its recorded inputs are the
-- warehouse's): what pyeval/core/archive.py record_evaluation inserts, in the evaluation's
-- transaction, after it deleted the rows of those keys.
insert into current_scores (
    campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at, judgment_set, aggregate,
    higher_is_better
)
select
    topic_scores.campaign_id,
    topic_scores.run_id,
    topic_scores.topic_id,
    topic_scores.measure,
    topic_scores.value,
    topic_scores.evaluation_id,
    evaluations.created_at,
    topic_scores.judgment_set,
    measures.aggregate,
    measures.higher_is_better
from topic_scores
left join evaluations on topic_scores.evaluation_id = evaluations.evaluation_id
left join evaluation_measures
    on topic_scores.evaluation_id = evaluation_measures.evaluation_id
    and topic_scores.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where topic_scores.evaluation_id = $id
