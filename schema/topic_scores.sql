-- topic_scores: One row per (evaluation, campaign, run, topic, measure): the backing table of the view scores.
create table topic_scores (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    measure varchar not null,
    value double,
    judgment_set varchar not null default 'official'
);
