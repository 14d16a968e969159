-- reads: current_means, evaluation_measures, measures, runs
-- produces: run_means (campaign_id, run_id, system, team, run_date, measure, value, topics,
--           evaluation_id, evaluated_at, measure_name, aggregate, higher_is_better, judgment_set)
-- grain: campaign_id, judgment_set, run_id, measure
-- params: none
-- run_means: one row per (campaign_id, run_id, measure): the value `pyeval evaluate` printed for
-- the run (the measure's declared aggregate over topics) in the latest evaluation whose inputs
-- still hold, with the run's metadata; one row per judgment set it was evaluated under
-- (judgment_set; docs/judgments.md).
-- Reads: current_means, the stored current means (migration 0016; which mean is current:
-- sql/archive/current_means_of_campaign.sql), kept by every evaluation and every load that
-- makes values stale (pyeval/archive.py).
-- Evaluations stored before migration 0006 recorded no means: re-evaluate to see them here.
-- Portable SQL (DuckDB and PostgreSQL).
select
    current_means.campaign_id,
    current_means.run_id,
    runs.system,
    runs.team,
    runs.run_date,
    current_means.measure,
    current_means.value,
    current_means.topics,
    current_means.evaluation_id,
    current_means.evaluated_at,
    evaluation_measures.measure_name,
    measures.aggregate,
    measures.higher_is_better,
    current_means.judgment_set
from current_means
inner join runs on current_means.campaign_id = runs.campaign_id and current_means.run_id = runs.run_id
left join evaluation_measures
    on current_means.evaluation_id = evaluation_measures.evaluation_id
    and current_means.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
