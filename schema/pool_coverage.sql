-- pool_coverage: One row per (campaign, pool, judgment set, run, topic, k): documents the run retrieved at
-- rank <= k, how many the set judges and finds relevant, the unjudged fraction, and how many no
-- pooled run of another team retrieved at rank <= k (pyeval pool coverage; docs/pools.md).
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
