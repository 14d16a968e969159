-- repro_results: One row per (repro_id, pair, statistic, measure): repro_eval's figures (migration 0021).
create table repro_results (
    repro_id bigint not null,
    pair varchar not null,
    statistic varchar not null,
    measure varchar,
    value double,
    topics integer not null
);
