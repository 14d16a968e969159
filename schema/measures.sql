-- measures: One row per measure pyeval computes (its canonical name): family, description,
-- parameters, whether higher is better, range, aggregate over topics and reference. Rewritten from
-- the measure registry on open when it differs (pyeval/measures/catalogue.py).
create table measures (
    measure_name varchar primary key,
    family varchar not null,
    description varchar not null,
    parameters varchar not null,
    cutoff_parameter varchar,
    aliases varchar not null,
    higher_is_better boolean,
    minimum_value double,
    maximum_value double,
    aggregate varchar not null,
    storable boolean not null,
    reference varchar not null
);
