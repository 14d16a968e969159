-- 0005_resampling: resampling stage I (docs/resampling.md). Replicate sets and their draws
-- (bootstrap index matrices, sign flips; Tukey permutations are regenerated from their seed and
-- checked against data_sha256), every significance test performed with its settings, its
-- per-pair results, and discriminative power with the ASL curve.
create table resample_sets (
    replicate_set_id bigint primary key,
    kind varchar not null check (kind in ('bootstrap', 'signflip', 'permutation')),
    campaign_id varchar not null,
    topic_ids varchar[] not null,
    topic_set_sha256 varchar not null,
    topic_count integer not null,
    run_count integer,
    replicates integer not null,
    seed bigint not null,
    spawn_key varchar not null,
    generator varchar not null,
    numpy_version varchar not null,
    chunk_size integer,
    draws_stored boolean not null,
    data_sha256 varchar not null,
    created_at timestamp not null default current_timestamp
);
create table resample_replicates (
    replicate_set_id bigint not null,
    replicate integer not null,
    draw integer[] not null
);
create table significance_tests (
    test_id bigint primary key,
    campaign_id varchar not null,
    measure varchar not null,
    test varchar not null,
    run_ids varchar[] not null,
    topic_count integer not null,
    filled_cells integer not null,
    evaluation_id bigint,
    replicates integer,
    seed bigint,
    replicate_set_id bigint,
    alpha double not null,
    correction varchar not null,
    comparison varchar,
    p_convention varchar,
    tolerance double not null,
    significant_pairs integer not null,
    total_pairs integer not null,
    delta double,
    hsd double,
    settings varchar,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
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
    evaluation_id bigint
);
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
    asl_curve double[] not null
);
