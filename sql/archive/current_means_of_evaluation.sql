-- reads: evaluation_means, evaluation_measures, evaluations, measures, runs
-- writes: current_means
-- params: $id
-- current_means_of_evaluation: the means evaluation $id stored, the current means of their
-- (judgment set, run, measure) keys, with the run's metadata and the measure's declaration as
-- sql/archive/current_means_of_campaign.sql gives them: what pyeval/core/archive.py record_evaluation inserts, in the
-- evaluation's transaction, after it deleted the rows of those keys.
insert into current_means (
    campaign_id, run_id, system, team, run_date, measure, value, topics, evaluation_id, evaluated_at,
    measure_name, aggregate, higher_is_better, judgment_set
)
select
    evaluation_means.campaign_id,
    evaluation_means.run_id,
    runs.system,
    runs.team,
    runs.run_date,
    evaluation_means.measure,
    evaluation_means.value,
    evaluation_means.topics,
    evaluation_means.evaluation_id,
    evaluations.created_at,
    evaluation_measures.measure_name,
    measures.aggregate,
    measures.higher_is_better,
    evaluation_means.judgment_set
from evaluation_means
inner join runs on evaluation_means.campaign_id = runs.campaign_id and evaluation_means.run_id = runs.run_id
left join evaluations on evaluation_means.evaluation_id = evaluations.evaluation_id
left join evaluation_measures
    on evaluation_means.evaluation_id = evaluation_measures.evaluation_id
    and evaluation_means.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where evaluation_means.evaluation_id = $id
