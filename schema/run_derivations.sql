-- run_derivations: One row per fused run (migration 0013): the method and the whole recipe
-- (parameters, JSON) it was made with; its entries are in runs and run_entries like any run's.
create table run_derivations (
    campaign_id varchar not null,
    run_id varchar not null,
    method varchar not null,
    parameters varchar not null,
    pyeval_version varchar not null,
    derived_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);
