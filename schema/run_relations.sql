-- run_relations: One row per (campaign, run, relation): the run reproduces (same collection) or
-- replicates (another collection) an original run (migration 0021; docs/reproducibility.md).
create table run_relations (
    campaign_id varchar not null,
    run_id varchar not null,
    relation varchar not null,
    original_campaign_id varchar not null,
    original_run_id varchar not null,
    provenance varchar,
    recorded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id, relation)
);
