-- reads: judgment_sets, pool_runs, pool_unique_documents
-- produces: unique_relevant (campaign_id, pool_name, judgment_set, grouped_by, group_name, unique_judged,
--           unique_relevant)
-- grain: campaign_id, pool_name, judgment_set, grouped_by, group_name
-- params: none
-- unique_relevant: per pool, judgment set of its campaign and group of the pool (grouped_by
-- 'team': each team of its pooled runs, a run without a team being a group of its own, as
-- annotate-qrels.pl and gloo-eval.pl count groups; 'run': each pooled run), how many judged
-- documents only that group contributed (unique_judged) and how many of them are relevant,
-- level > 0 (unique_relevant); 0 for a group that contributed none. What `pyeval pool uniques`
-- prints. docs/pools.md section 3. Portable SQL (DuckDB and PostgreSQL).
with pool_groups as (
    select distinct
        pool_runs.campaign_id,
        pool_runs.pool_name,
        'team' as grouped_by,
        coalesce(pool_runs.team, pool_runs.run_id) as group_name
    from pool_runs
    union all
    select
        pool_runs.campaign_id,
        pool_runs.pool_name,
        'run' as grouped_by,
        pool_runs.run_id as group_name
    from pool_runs
),

unique_counts as (
    select
        campaign_id,
        pool_name,
        judgment_set,
        grouped_by,
        group_name,
        count(*) as unique_judged,
        count(*) filter (where level > 0) as unique_relevant
    from pool_unique_documents
    group by campaign_id, pool_name, judgment_set, grouped_by, group_name
)

select
    pool_groups.campaign_id,
    pool_groups.pool_name,
    judgment_sets.judgment_set,
    pool_groups.grouped_by,
    pool_groups.group_name,
    coalesce(unique_counts.unique_judged, 0) as unique_judged,
    coalesce(unique_counts.unique_relevant, 0) as unique_relevant
from pool_groups
inner join judgment_sets on pool_groups.campaign_id = judgment_sets.campaign_id
left join unique_counts
    on
        pool_groups.campaign_id = unique_counts.campaign_id
        and pool_groups.pool_name = unique_counts.pool_name
        and judgment_sets.judgment_set = unique_counts.judgment_set
        and pool_groups.grouped_by = unique_counts.grouped_by
        and pool_groups.group_name = unique_counts.group_name
