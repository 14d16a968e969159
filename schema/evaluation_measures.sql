-- evaluation_measures: One row per (evaluation, measure): the canonical name and what it meant
-- then: declaration name, family, every parameter as JSON (defaults included), the aggregate over
-- topics and the gain profile it used. Null except measure for evaluations made before 0006.
create table evaluation_measures (
    evaluation_id bigint not null,
    measure varchar not null,
    measure_name varchar,
    family varchar,
    parameters varchar,
    aggregate varchar,
    gain_profile varchar,
    primary key (evaluation_id, measure)
);
