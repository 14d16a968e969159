-- reads: evaluation_means, evaluations
-- writes: current_means
-- params: $id
-- current_means_of_evaluation: the means evaluation $id stored, the current means of their
-- (judgment set, run, measure) keys: what pyeval/archive.py record_evaluation inserts, in the
-- evaluation's transaction, after it deleted the rows of those keys.
insert into current_means (
    campaign_id, run_id, measure, value, topics, evaluation_id, evaluated_at, judgment_set
)
select
    evaluation_means.campaign_id,
    evaluation_means.run_id,
    evaluation_means.measure,
    evaluation_means.value,
    evaluation_means.topics,
    evaluation_means.evaluation_id,
    evaluations.created_at,
    evaluation_means.judgment_set
from evaluation_means
left join evaluations on evaluation_means.evaluation_id = evaluations.evaluation_id
where evaluation_means.evaluation_id = $id
