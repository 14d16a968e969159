-- reads: run_tags, runs
-- produces: report_runs (run_id, run_tag, team, system, run_date, source_file, source_sha256, loaded_at, tags)
-- grain: run_id
-- params: $campaign_id
-- report_runs: the metadata of every run of a campaign as its report page shows it (`pyeval
-- report`, docs/reports.md): the stored runs row (tag, team, system, date, the file it was
-- loaded from and that file's sha256, when it was loaded) and its tags, comma-separated.
select
    runs.run_id,
    runs.run_tag,
    runs.team,
    runs.system,
    runs.run_date,
    runs.source_file,
    runs.source_sha256,
    runs.loaded_at,
    (
        select string_agg(run_tags.tag, ', ' order by run_tags.tag)
        from run_tags
        where run_tags.campaign_id = runs.campaign_id and run_tags.run_id = runs.run_id
    ) as tags
from runs
where runs.campaign_id = $campaign_id
order by runs.run_id
