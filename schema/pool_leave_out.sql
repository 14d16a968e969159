-- pool_leave_out: One row per (campaign, pool, grouping, measure, run): the run's mean under the official
-- set and under the set without the documents only its team (or run) contributed, NIST's summary
-- columns (loo-summarize.pl) and its rank in both leaderboards (pyeval pool loo; docs/pools.md).
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
    official_evaluation_id bigint,
    primary key (campaign_id, pool_name, grouping, measure, run_id)
);
