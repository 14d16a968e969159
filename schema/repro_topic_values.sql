-- repro_topic_values: One row per (repro_id, pair, statistic, measure, topic) (migration 0021).
create table repro_topic_values (
    repro_id bigint not null,
    pair varchar not null,
    statistic varchar not null,
    measure varchar,
    topic_id varchar not null,
    value double
);
