-- discriminative_power: one row per (discpower experiment, measure): significant pairs at alpha, Δ,
-- and the ASL curve (every pair's p, ascending).
create table discriminative_power (
    discpower_id bigint not null,
    test_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    test varchar not null,
    alpha double not null,
    significant_pairs integer not null,
    total_pairs integer not null,
    share double not null,
    delta double,
    replicates integer,
    seed bigint,
    asl_curve double[] not null,
    warnings varchar[],
    judgment_set varchar not null default 'official'
);
