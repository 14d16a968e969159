-- longitudinal_experiments: One row per `pyeval longitudinal` (migration 0021).
create table longitudinal_experiments (
    longitudinal_id bigint primary key,
    campaign_id varchar not null,
    pivot_system varchar not null,
    reference_snapshot varchar not null,
    snapshots varchar[] not null,
    systems varchar[] not null,
    measures varchar[] not null,
    evaluation_ids bigint[] not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
