-- pools: One row per (campaign, pool): a pool built from stored runs (pyeval pool build; docs/pools.md):
-- the ordering, depth, per-topic budget, rank strata (JSON) and seed it was built with, all its
-- parameters (JSON) and its size.
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
