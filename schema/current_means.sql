-- current_means: One row per (campaign, judgment set, run, measure) with a current mean: the
-- rows the view run_means shows (the mean of the latest evaluation whose inputs still hold, with
-- the run's metadata and the measure's declaration), kept by pyeval/core/archive.py with
-- current_scores (migration 0015).
create table current_means (
    campaign_id varchar not null,
    run_id varchar not null,
    system varchar,
    team varchar,
    run_date date,
    measure varchar not null,
    value double,
    topics bigint not null,
    evaluation_id bigint not null,
    evaluated_at timestamp,
    measure_name varchar,
    aggregate varchar,
    higher_is_better boolean,
    judgment_set varchar not null
);
