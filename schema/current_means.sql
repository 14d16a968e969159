-- current_means: One row per (campaign, judgment set, run, measure) with a current mean: the
-- mean of the latest evaluation whose inputs still hold (what the view run_means shows), kept by
-- pyeval/archive.py with current_scores (migration 0016).
create table current_means (
    campaign_id varchar not null,
    run_id varchar not null,
    measure varchar not null,
    value double,
    topics bigint not null,
    evaluation_id bigint not null,
    evaluated_at timestamp,
    judgment_set varchar not null
);
