-- runs: One row per run of a campaign: its name, the tag its file carried, the file and its sha256.
create table runs (
    campaign_id varchar not null,
    run_id varchar not null,
    run_tag varchar,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);
