-- 0008_metaeval: resampling stage II (issue 8; docs/resampling.md "Stage II"). Topic-subset
-- draws become replicate sets too (kinds subset, disjoint_pair, bootstrap_pair, with their
-- subset size c), and every meta-evaluation result gets a public table: swap rates per bin and
-- their read-off, minority rates and proportions of ties per fuzziness, rank correlations and
-- agreement of significant pairs, concordance tests, gain-assignment robustness, and the
-- maximum-entropy (MEM) fits and predictions.
-- resample_sets is rebuilt (DuckDB cannot alter a check constraint); its rows are kept.
-- Forward-only: never edit this file once merged.

create table resample_sets_0008 (
    replicate_set_id bigint primary key,
    kind varchar not null check (
        kind in ('bootstrap', 'signflip', 'permutation', 'subset', 'disjoint_pair', 'bootstrap_pair')
    ),
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
    created_at timestamp not null default current_timestamp,
    subset_size integer
);

insert into resample_sets_0008 (
    replicate_set_id, kind, campaign_id, topic_ids, topic_set_sha256, topic_count, run_count, replicates,
    seed, spawn_key, generator, numpy_version, chunk_size, draws_stored, data_sha256, created_at
)
select
    replicate_set_id, kind, campaign_id, topic_ids, topic_set_sha256, topic_count, run_count, replicates,
    seed, spawn_key, generator, numpy_version, chunk_size, draws_stored, data_sha256, created_at
from resample_sets;

drop table resample_sets;

alter table resample_sets_0008 rename to resample_sets;

create table swap_rates (
    swaprate_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    evaluation_id bigint,
    run_ids varchar[] not null,
    topic_count integer not null,
    subset_size integer not null,
    trials integer not null,
    sampling varchar not null,
    swap_rule varchar not null,
    seed bigint not null,
    replicate_set_id bigint,
    bin integer not null,
    bin_low double not null,
    bin_high double,
    comparisons bigint not null,
    swaps bigint not null,
    swap_rate double,
    created_at timestamp not null default current_timestamp
);

create table swap_rate_summaries (
    swaprate_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    evaluation_id bigint,
    run_ids varchar[] not null,
    topic_count integer not null,
    subset_size integer not null,
    trials integer not null,
    sampling varchar not null,
    swap_rule varchar not null,
    seed bigint not null,
    replicate_set_id bigint,
    bin_width double not null,
    max_swap_rate double not null,
    required_difference double,
    relative_denominator double,
    relative_difference double,
    comparisons bigint not null,
    comparisons_reaching bigint,
    share_reaching double,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table minority_rates (
    stability_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    evaluation_id bigint,
    run_ids varchar[] not null,
    topic_count integer not null,
    subset_size integer not null,
    trials integer not null,
    seed bigint not null,
    replicate_set_id bigint,
    fuzz varchar not null,
    strict_bv_rule boolean not null,
    fuzziness double not null,
    pairs integer not null,
    comparisons bigint not null,
    minority bigint not null,
    ties bigint not null,
    minority_rate double not null,
    proportion_of_ties double not null,
    created_at timestamp not null default current_timestamp
);

create table rank_correlations (
    correlation_id bigint not null,
    campaign_id varchar not null,
    measure_a varchar not null,
    measure_b varchar not null,
    evaluation_id bigint,
    evaluation_ids bigint[] not null,
    run_ids varchar[] not null,
    topic_count integer not null,
    tau double,
    tau_b double,
    tau_b_pvalue double,
    tau_ap double,
    tau_ap_reverse double,
    tau_ap_symmetric double,
    tied_means boolean not null,
    test varchar,
    alpha double,
    replicates integer,
    seed bigint,
    test_id_a bigint,
    test_id_b bigint,
    significant_a integer,
    significant_b integer,
    a_only integer,
    in_both integer,
    b_only integer,
    conflicts integer,
    agreement double,
    created_at timestamp not null default current_timestamp
);

create table concordance_tests (
    concordance_id bigint not null,
    campaign_id varchar not null,
    measure_1 varchar not null,
    measure_2 varchar not null,
    gold_1 varchar not null,
    gold_2 varchar,
    evaluation_id bigint,
    evaluation_ids bigint[] not null,
    run_ids varchar[] not null,
    topic_count integer not null,
    list_pairs bigint not null,
    tolerance double not null,
    disagreements bigint not null,
    correct_1 bigint not null,
    correct_2 bigint not null,
    concordance_1 double,
    concordance_2 double,
    wins_1 bigint not null,
    wins_2 bigint not null,
    p_value double not null,
    created_at timestamp not null default current_timestamp
);

create table gain_robustness (
    robustness_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    profile varchar not null,
    variant varchar not null,
    reference_variant varchar not null,
    evaluation_id bigint,
    reference_evaluation_id bigint,
    run_ids varchar[] not null,
    topic_count integer not null,
    tau double,
    tau_b double,
    tau_ap double,
    tied_means boolean not null,
    created_at timestamp not null default current_timestamp
);

create table mem_solutions (
    mem_id bigint not null,
    campaign_id varchar not null,
    target varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    depth integer not null,
    alpha double not null,
    beta double not null,
    expectation varchar not null,
    solver varchar not null,
    intents integer not null,
    relevant integer not null,
    relevant_retrieved integer not null,
    observed double not null,
    entropy double,
    iterations integer,
    residual double,
    converged boolean not null,
    status varchar,
    rms double,
    mae double,
    created_at timestamp not null default current_timestamp
);

create table mem_predictions (
    mem_id bigint not null,
    campaign_id varchar not null,
    target varchar not null,
    predicted varchar not null,
    depth integer not null,
    alpha double not null,
    beta double not null,
    expectation varchar not null,
    solver varchar not null,
    runs integer not null,
    topics integer not null,
    runs_excluded integer not null,
    tau double,
    rmsr double,
    mare double,
    rms double,
    mae double,
    created_at timestamp not null default current_timestamp
);
