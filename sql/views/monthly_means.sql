-- monthly_means: one row per (system, measure, month): how a system's runs did, month by month,
-- across every campaign. month: the first day of the month of the run's run_date
-- (`load run --date`, `pyeval annotate --date`); runs without a date are left out (the day
-- a file was loaded says nothing about when the run was made). system: runs.system, else the
-- run's name.
-- Reads: run_means.
-- mean_value is the arithmetic mean of the runs' values (run_means.value, each the measure's
-- own aggregate over topics) in that month.
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
