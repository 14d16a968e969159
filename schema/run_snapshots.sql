-- run_snapshots: One row per run of a longitudinal campaign: the system it is, at which snapshot
-- (label, date), the judgment set holding that snapshot's qrels, the pivot's run (migration 0021).
create table run_snapshots (
    campaign_id varchar not null,
    run_id varchar not null,
    system varchar not null,
    snapshot varchar not null,
    snapshot_date date,
    judgment_set varchar,
    pivot_run_id varchar,
    provenance varchar,
    recorded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id),
    unique (campaign_id, system, snapshot)
);
