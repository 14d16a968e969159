-- concordance_tests: one row per (concordance experiment, measure pair, gold standard(s)): disagreements, each
-- measure's concordance with the gold standard, wins and the sign test (Sakai WWW 2012 / JIP 2013 Fig. 6).
create table concordance_tests (
    concordance_id bigint not null,
    campaign_id varchar not null,
    measure_1 varchar not null,
    measure_2 varchar not null,
    gold_1 varchar not null,
    gold_2 varchar,
    evaluation_id bigint,
    evaluation_ids bigint[] not null,
    run_ids varchar[] not null,
    topic_count integer not null,
    list_pairs bigint not null,
    tolerance double not null,
    disagreements bigint not null,
    correct_1 bigint not null,
    correct_2 bigint not null,
    concordance_1 double,
    concordance_2 double,
    wins_1 bigint not null,
    wins_2 bigint not null,
    p_value double not null,
    created_at timestamp not null default current_timestamp,
    warnings varchar[],
    judgment_set varchar not null default 'official'
);
