-- reads: campaigns, run_means_by_set
-- produces: run_means (campaign_id, run_id, system, team, run_date, measure, value, topics,
--           evaluation_id, evaluated_at, measure_name, aggregate, higher_is_better, judgment_set)
-- grain: campaign_id, run_id, measure
-- params: none
-- run_means: one row per (campaign_id, run_id, measure): the value `pyeval evaluate` printed for
-- the run (the measure's declared aggregate over topics) in the latest evaluation whose inputs
-- still hold, with the run's metadata, under each campaign's default judgment set
-- (campaigns.default_judgment_set; docs/judgments.md). Every set is in run_means_by_set.
-- Portable SQL (DuckDB and PostgreSQL).
select run_means_by_set.*
from run_means_by_set
inner join campaigns
    on run_means_by_set.campaign_id = campaigns.campaign_id
    and run_means_by_set.judgment_set = campaigns.default_judgment_set
