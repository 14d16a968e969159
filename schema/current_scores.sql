-- current_scores: One row per (campaign, judgment set, run, topic, measure) with a current value:
-- the rows the view scores shows (the latest evaluation whose inputs still hold), kept by
-- pyeval/core/archive.py in the transaction of each evaluation and of each load or deletion that
-- makes stored values stale, so that whole-archive queries read stored rows (migration 0015).
create table current_scores (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    measure varchar not null,
    value double,
    evaluation_id bigint not null,
    evaluated_at timestamp,
    judgment_set varchar not null,
    aggregate varchar,
    higher_is_better boolean
);
