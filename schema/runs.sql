-- runs: One row per run of a campaign: its name, the tag its file carried, the file and its sha256,
-- and its metadata for trend queries (migration 0006): the system it comes from, the team, the
-- date it was made (null when unknown). Tags are in run_tags.
create table runs (
    campaign_id varchar not null,
    run_id varchar not null,
    run_tag varchar,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    system varchar,
    team varchar,
    run_date date,
    primary key (campaign_id, run_id)
);
