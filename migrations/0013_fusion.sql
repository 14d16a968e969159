-- 0013_fusion: fused runs as stored, derived runs (issue 29; docs/fusion.md).
-- run_derivations: one row per fused run (its entries are in runs and run_entries like any
-- run's): the method and the whole recipe as JSON, so that the run can be made again.
-- run_derivation_parents: the runs it was fused from, in input order, each with the sha256 it
-- had then; a parent replaced by other content makes the fused run stale (view current_inputs).
-- fusion_grids and fusion_grid_points: a parameter grid evaluated in one pass (pyeval fuse
-- --grid): the fixed recipe, the measure, the topic split, and each point's parameters and means.
-- Forward-only: never edit this file once merged.

create table run_derivations (
    campaign_id varchar not null,
    run_id varchar not null,
    method varchar not null,
    parameters varchar not null,
    pyeval_version varchar not null,
    derived_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);

create table run_derivation_parents (
    campaign_id varchar not null,
    run_id varchar not null,
    input_position integer not null,
    parent_run_id varchar not null,
    parent_sha256 varchar not null,
    primary key (campaign_id, run_id, input_position)
);

create table fusion_grids (
    grid_id bigint primary key,
    campaign_id varchar not null,
    method varchar not null,
    parameters varchar not null,
    measure varchar not null,
    judgment_set varchar not null default 'official',
    topic_split varchar not null,
    best_point integer,
    kept_run_id varchar,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table fusion_grid_points (
    grid_id bigint not null,
    point_id integer not null,
    parameters varchar not null,
    train_mean double,
    test_mean double,
    train_topics integer not null,
    test_topics integer not null,
    primary key (grid_id, point_id)
);
