-- repro_experiments: One row per `pyeval repro`: the four runs, the measures, the settings (migration 0021).
create table repro_experiments (
    repro_id bigint primary key,
    kind varchar not null,
    campaign_id varchar not null,
    baseline_run_id varchar not null,
    advanced_run_id varchar not null,
    rep_campaign_id varchar not null,
    rep_baseline_run_id varchar not null,
    rep_advanced_run_id varchar not null,
    judgment_set varchar not null,
    rep_judgment_set varchar not null,
    measures varchar[] not null,
    trim_depth integer not null,
    rbo_depth integer not null,
    rbo_p double not null,
    evaluation_ids bigint[] not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
