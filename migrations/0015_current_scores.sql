-- 0015_current_scores: the current value of every (campaign, judgment set, run, topic, measure)
-- and of every run's mean as stored tables (issue 30), so that the views scores, run_means,
-- leaderboard and monthly_means read stored rows instead of regrouping every evaluation at
-- every query. Created empty here; the open that applies this migration fills them from the
-- stored history in the transaction that recreates the views (pyeval/storage/archive.py rebuild), and
-- every evaluation and every load that makes values stale keeps them current.
-- Forward-only: never edit this file once merged.

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
