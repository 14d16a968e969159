-- minority_rates: one row per (stability experiment, measure, fuzziness): Buckley & Voorhees' minority rate and
-- proportion of ties over topic subsets (AIRS 2005 Fig. 1).
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
    created_at timestamp not null default current_timestamp,
    judgment_set varchar not null default 'official'
);
