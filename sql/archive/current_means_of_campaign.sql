-- reads: evaluation_means, evaluation_measures, evaluations, measures, runs, stale_results
-- writes: current_means
-- params: $campaign_id
-- current_means_of_campaign: the current means of campaign $campaign_id (null: of every
-- campaign), one per (judgment set, run, measure): the mean of the latest evaluation (highest evaluation_id) whose stored values
-- for the run and measure are not stale (stale_results), with that evaluation's time, the run's
-- metadata (a stored run only) and the measure's declaration: the rows the view run_means shows.
-- pyeval/core/archive.py refresh inserts it after it deleted the campaign's rows. The one definition
-- of which mean is current (run_means reads its result; before migration 0015 it was run_means'
-- own text).
insert into current_means (
    campaign_id, run_id, system, team, run_date, measure, value, topics, evaluation_id, evaluated_at,
    measure_name, aggregate, higher_is_better, judgment_set
)
select
    ranked_means.campaign_id,
    ranked_means.run_id,
    runs.system,
    runs.team,
    runs.run_date,
    ranked_means.measure,
    ranked_means.value,
    ranked_means.topics,
    ranked_means.evaluation_id,
    evaluations.created_at,
    evaluation_measures.measure_name,
    measures.aggregate,
    measures.higher_is_better,
    ranked_means.judgment_set
from (
    select
        evaluation_means.evaluation_id,
        evaluation_means.campaign_id,
        evaluation_means.judgment_set,
        evaluation_means.run_id,
        evaluation_means.measure,
        evaluation_means.value,
        evaluation_means.topics,
        row_number() over (
            partition by
                evaluation_means.campaign_id, evaluation_means.judgment_set, evaluation_means.run_id,
                evaluation_means.measure
            order by evaluation_means.evaluation_id desc
        ) as recency
    from evaluation_means
    left join stale_results
        on evaluation_means.evaluation_id = stale_results.evaluation_id
        and evaluation_means.run_id = stale_results.run_id
        and evaluation_means.measure = stale_results.measure
    where
        stale_results.evaluation_id is null
        and ($campaign_id is null or evaluation_means.campaign_id = $campaign_id)
) as ranked_means
inner join runs on ranked_means.campaign_id = runs.campaign_id and ranked_means.run_id = runs.run_id
left join evaluations on ranked_means.evaluation_id = evaluations.evaluation_id
left join evaluation_measures
    on ranked_means.evaluation_id = evaluation_measures.evaluation_id
    and ranked_means.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where ranked_means.recency = 1
order by ranked_means.campaign_id, ranked_means.run_id
