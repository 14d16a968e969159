-- risk_results: one row per (risk experiment, measure, baseline, alpha, run, risk measure): URisk, TRisk and
-- its p-value, ZRisk, GeoRisk (Dinçer, Macdonald & Ounis SIGIR 2014, 2016; docs/risk.md).
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
