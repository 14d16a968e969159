-- reads: run_means
-- produces: monthly_means (system, measure, month, mean_value, min_value, max_value, runs,
--           campaigns, campaign_id)
-- grain: campaign_id, system, measure, month
-- params: none
-- monthly_means: one row per (campaign_id, system, measure, month): how a system's runs did on a
-- campaign, month by month (a mean over one campaign's topics; means of different campaigns are
-- over different topics, so they are not averaged together: filter or group by campaign_id).
-- month: the first day of the month of the run's run_date (runs without a date are in no month);
-- system: runs.system, else the run's name.
-- mean_value is the arithmetic mean of the runs' values (run_means.value) in that month.
-- campaigns: 1 (kept from when a row spanned every campaign; campaign_id names it).
-- Portable SQL (DuckDB and PostgreSQL).
with dated_means as (
    select
        coalesce(system, run_id) as system,
        measure,
        cast(date_trunc('month', run_date) as date) as month,
        campaign_id,
        value
    from run_means
    where run_date is not null
)

select
    system,
    measure,
    month,
    avg(value) as mean_value,
    min(value) as min_value,
    max(value) as max_value,
    count(*) as runs,
    count(distinct campaign_id) as campaigns,
    campaign_id
from dated_means
group by campaign_id, system, measure, month
