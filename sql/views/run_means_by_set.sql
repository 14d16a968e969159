-- reads: current_means
-- produces: run_means_by_set (campaign_id, run_id, system, team, run_date, measure, value, topics,
--           evaluation_id, evaluated_at, measure_name, aggregate, higher_is_better, judgment_set)
-- grain: campaign_id, judgment_set, run_id, measure
-- params: none
-- run_means_by_set: one row per (campaign_id, judgment_set, run_id, measure): the value `pyeval evaluate` printed for
-- the run (the measure's declared aggregate over topics) in the latest evaluation whose inputs
-- still hold, with the run's metadata, under every judgment set it was evaluated under
-- (judgment_set; docs/judgments.md); the view run_means shows each campaign's default set.
-- Reads: current_means, these rows stored (migration 0015; which mean is current:
-- sql/archive/current_means_of_campaign.sql), kept by every evaluation, every load that makes
-- values stale and every change of a run's metadata (pyeval/core/archive.py).
-- Evaluations stored before migration 0006 recorded no means: re-evaluate to see them here.
-- Portable SQL (DuckDB and PostgreSQL).
select
    campaign_id,
    run_id,
    system,
    team,
    run_date,
    measure,
    value,
    topics,
    evaluation_id,
    evaluated_at,
    measure_name,
    aggregate,
    higher_is_better,
    judgment_set
from current_means
