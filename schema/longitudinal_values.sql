-- longitudinal_values: LongEval's long rows of one `pyeval longitudinal` (migration 0021).
create table longitudinal_values (
    longitudinal_id bigint not null,
    team varchar,
    system varchar not null,
    run_id varchar not null,
    snapshot varchar not null,
    qrels_set varchar not null,
    query varchar not null,
    meta_measure varchar not null,
    measure varchar not null,
    value double
);
