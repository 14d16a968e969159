-- swap_rate_summaries: one row per (swap-rate experiment, measure): the smallest difference from which the swap
-- rate stays <= max_swap_rate, and the share of all comparisons that reach it (AIRS 2005 Tables 2-3).
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
    created_at timestamp not null default current_timestamp,
    warnings varchar[],
    judgment_set varchar not null default 'official'
);
