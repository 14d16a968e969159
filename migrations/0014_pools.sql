-- 0014_pools: pools as stored objects, their coverage and leave-one-group-out results (issue 27;
-- docs/pools.md). pools: one row per (campaign, pool) with its parameters and seed; pool_runs:
-- the runs that contributed and the depth each was pooled to; pool_documents: one row per pooled
-- (topic, document) with its best rank and the runs and teams that contributed it;
-- pool_coverage: judged@k and unique-to-team counts per (pool, judgment set, run, topic, k);
-- pool_leave_out and pool_leave_out_rankings: leave-one-group-out means and ranking agreement.
-- Forward-only: never edit this file once merged.

create table pools (
    campaign_id varchar not null,
    pool_name varchar not null,
    ordering varchar not null,
    depth integer not null,
    budget integer,
    strata varchar not null,
    seed bigint not null,
    parameters varchar not null,
    documents bigint not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp,
    primary key (campaign_id, pool_name)
);

create table pool_runs (
    campaign_id varchar not null,
    pool_name varchar not null,
    run_id varchar not null,
    team varchar,
    depth integer not null,
    run_position integer not null,
    primary key (campaign_id, pool_name, run_id)
);

create table pool_documents (
    campaign_id varchar not null,
    pool_name varchar not null,
    topic_id varchar not null,
    doc_id varchar not null,
    best_rank integer not null,
    stratum integer not null,
    first_run varchar not null,
    runs varchar[] not null,
    teams varchar[] not null,
    primary key (campaign_id, pool_name, topic_id, doc_id)
);

create table pool_coverage (
    campaign_id varchar not null,
    pool_name varchar not null,
    judgment_set varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    k integer not null,
    retrieved integer not null,
    judged integer not null,
    relevant integer not null,
    unjudged_fraction double,
    unique_to_team integer not null,
    primary key (campaign_id, pool_name, judgment_set, run_id, topic_id, k)
);

create table pool_leave_out (
    campaign_id varchar not null,
    pool_name varchar not null,
    grouping varchar not null check (grouping in ('team', 'run')),
    measure varchar not null,
    run_id varchar not null,
    left_out varchar,
    judgment_set varchar,
    pooled boolean not null,
    official double,
    leave_out double,
    difference double,
    percent_difference double,
    official_rank integer,
    leave_out_rank integer,
    rank_change integer,
    removed_documents bigint not null,
    removed_relevant bigint not null,
    created_at timestamp not null default current_timestamp,
    primary key (campaign_id, pool_name, grouping, measure, run_id)
);

create table pool_leave_out_rankings (
    campaign_id varchar not null,
    pool_name varchar not null,
    grouping varchar not null,
    measure varchar not null,
    runs integer not null,
    kendall_tau double,
    kendall_tau_b double,
    tau_ap double,
    max_rank_change integer,
    created_at timestamp not null default current_timestamp,
    primary key (campaign_id, pool_name, grouping, measure)
);
