-- evaluation_means: One row per (evaluation, run, measure): the value `pyeval evaluate` printed
-- (the measure's mean over topics, its sum for counts, its geometric mean for GMAP) and the
-- number of topics it covers. Evaluations made before migration 0006 have none.
create table evaluation_means (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    run_id varchar not null,
    measure varchar not null,
    value double,
    topics bigint not null,
    judgment_set varchar not null default 'official',
    primary key (evaluation_id, run_id, measure)
);
