-- pool_runs: One row per (campaign, pool, run) that contributed to a pool: the run's team then, the
-- depth it was pooled to and its position in the pooling order (make-pools.pl's run list).
create table pool_runs (
    campaign_id varchar not null,
    pool_name varchar not null,
    run_id varchar not null,
    team varchar,
    depth integer not null,
    run_position integer not null,
    primary key (campaign_id, pool_name, run_id)
);
