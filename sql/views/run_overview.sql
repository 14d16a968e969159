-- reads: pool_runs, run_entries, runs
-- produces: run_overview (campaign_id, run_id, run_tag, topics, entries, source_file,
--           source_sha256, loaded_at, pooled)
-- grain: campaign_id, run_id
-- params: none
-- run_overview: one row per (campaign_id, run_id) with its size and provenance (`pyeval list`),
-- and whether it contributed to a pool of the campaign (pyeval pool build; docs/pools.md).
with entry_counts as (
    select
        campaign_id,
        run_id,
        count(distinct topic_id) as topics,
        count(*) as entries
    from run_entries
    group by campaign_id, run_id
)

select
    runs.campaign_id,
    runs.run_id,
    runs.run_tag,
    coalesce(entry_counts.topics, 0) as topics,
    coalesce(entry_counts.entries, 0) as entries,
    runs.source_file,
    runs.source_sha256,
    runs.loaded_at,
    exists (
        select 1 from pool_runs
        where pool_runs.campaign_id = runs.campaign_id and pool_runs.run_id = runs.run_id
    ) as pooled
from runs
left join entry_counts
    on runs.campaign_id = entry_counts.campaign_id and runs.run_id = entry_counts.run_id
