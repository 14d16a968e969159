-- run_derivation_parents: One row per input of a fused run (migration 0013), in input order,
-- with the sha256 the parent run had when the fused run was made.
create table run_derivation_parents (
    campaign_id varchar not null,
    run_id varchar not null,
    input_position integer not null,
    parent_run_id varchar not null,
    parent_sha256 varchar not null,
    primary key (campaign_id, run_id, input_position)
);
