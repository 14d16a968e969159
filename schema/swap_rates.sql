-- swap_rates: one row per (swap-rate experiment, measure, bin): comparisons whose first-subset difference
-- |d| falls in the bin, swaps among them and the swap rate (Voorhees & Buckley 2002; Sakai AIRS 2005 Fig. 2).
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
    created_at timestamp not null default current_timestamp,
    judgment_set varchar not null default 'official'
);
