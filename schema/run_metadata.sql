-- run_metadata: One row per run with an ir-metadata document, stored as JSON (migration 0021).
create table run_metadata (
    campaign_id varchar not null,
    run_id varchar not null,
    document varchar not null,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);
