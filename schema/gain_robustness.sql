-- gain_robustness: one row per (robustness experiment, measure, gain profile): Kendall's tau between the system
-- ranking under that gain assignment and under the default one (Sakai AIRS 2005 section 4.5).
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
    created_at timestamp not null default current_timestamp,
    warnings varchar[],
    judgment_set varchar not null default 'official'
);
