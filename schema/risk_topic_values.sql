-- risk_topic_values: one row per (risk experiment, measure, baseline, alpha, run, topic): the difference,
-- risk-reward and exploratory TRisk with its p-value (docs/risk.md).
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
