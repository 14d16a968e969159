-- 0012_risk: the topic x run matrix analyses (issue 28; docs/risk.md, docs/design.md).
-- risk_results: URisk, TRisk (with p), ZRisk and GeoRisk of each run against each baseline and alpha;
-- risk_topic_values: the per-topic risk-rewards and exploratory TRisk behind them;
-- topic_set_designs: Sakai's topic set size designs from a campaign's (or campaigns') residual variance.
-- Every row names its measure, judgment set, baseline (or design) and parameters.
-- Forward-only: never edit this file once merged.

create table risk_results (
    risk_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    judgment_set varchar not null default 'official',
    evaluation_id bigint,
    run_ids varchar[] not null,
    topic_count integer not null,
    baseline varchar not null,
    baseline_runs varchar[] not null,
    risk_measure varchar not null check (risk_measure in ('URisk', 'TRisk', 'ZRisk', 'GeoRisk')),
    alpha double not null check (alpha >= 0),
    se_convention varchar,
    run_id varchar not null,
    value double,
    p_value double,
    wins integer,
    losses integer,
    ties integer,
    headline boolean not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table risk_topic_values (
    risk_id bigint not null,
    campaign_id varchar not null,
    measure varchar not null,
    judgment_set varchar not null default 'official',
    baseline varchar not null,
    alpha double not null,
    se_convention varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    difference double not null,
    risk_reward double not null,
    trisk double,
    p_value double
);

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
