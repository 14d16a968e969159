-- pairwise_tests: one row per (test, run pair): means, statistic, p, adjusted p, effect size, CI, Δ.
-- Logical key (test_id, run_a, run_b).
create table pairwise_tests (
    test_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    test varchar not null,
    run_a varchar not null,
    run_b varchar not null,
    mean_a double not null,
    mean_b double not null,
    mean_diff double not null,
    statistic double,
    p double not null,
    p_adjusted double not null,
    significant boolean not null,
    mc_error double,
    effect_size double,
    ci_low double,
    ci_high double,
    delta double,
    delta_replicate integer,
    replicates integer,
    seed bigint,
    evaluation_id bigint,
    judgment_set varchar not null default 'official'
);
