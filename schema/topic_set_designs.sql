-- topic_set_designs: one row per (design experiment, measure, design): the topics required, and the power and
-- detectable difference at the campaign's topic count (Sakai, IRJ 2016; docs/design.md).
create table topic_set_designs (
    design_id bigint not null,
    campaign_ids varchar[] not null,
    measure varchar not null,
    judgment_set varchar not null default 'official',
    evaluation_ids bigint[] not null,
    variance_method varchar not null check (variance_method in ('two-way', 'one-way')),
    variance double not null,
    variance_df integer not null,
    run_count integer not null,
    current_topics integer not null,
    design varchar not null check (design in ('paired-t', 'anova', 'ci')),
    method varchar not null check (method in ('exact', 'normal')),
    alpha double not null,
    beta double,
    min_diff double not null,
    systems integer,
    topics_required integer,
    achieved_power double,
    detectable_at_current double,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
