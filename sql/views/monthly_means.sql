-- reads: run_means
-- produces: monthly_means (system, measure, month, mean_value, min_value, max_value, runs,
--           campaigns)
-- grain: system, measure, month
-- params: none
-- monthly_means: one row per (system, measure, month): how a system's runs did, month by month,
-- across every campaign. month: the first day of the month of the run's run_date (else of the
-- day it was loaded); system: runs.system, else the run's name.
-- mean_value is the arithmetic mean of the runs' values (run_means.value) in that month.
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
    count(distinct campaign_id) as campaigns
from dated_means
group by system, measure, month
