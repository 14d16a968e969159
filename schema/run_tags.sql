-- run_tags: One row per (campaign, run, tag): free labels of a run (`production`, `baseline`),
-- set by `pyeval load run --tag` or `pyeval annotate --tag`. Kept when the run is replaced.
create table run_tags (
    campaign_id varchar not null,
    run_id varchar not null,
    tag varchar not null,
    primary key (campaign_id, run_id, tag)
);
