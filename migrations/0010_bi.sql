-- 0010_bi: what dashboards need to read the warehouse on their own (issue 20; docs/bi.md).
-- measures: the measure catalogue, rewritten from pyeval's measure registry whenever it differs
-- (pyeval/measures/catalogue.py), so that every stored measure name joins to what it means, whether
-- higher is better and how it aggregates over topics.
-- derived_objects: what each view and generated table was last made from (the sha256 of its
-- SQL or rows), so that an open knows what to remake; views used to carry it as their comment,
-- which now describes them.
-- topic_texts: topic titles and descriptions, loaded by `pyeval load topics`.
-- Evaluations stored before 0006 recorded no measure_name: it is the stored canonical name up
-- to its parameters or cutoff (`nDCG(gain=exp)@10` -> `nDCG`), so that they join too.
-- Forward-only: never edit this file once merged.

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

create table derived_objects (
    object_name varchar primary key,
    object_kind varchar not null,
    sha256 varchar not null,
    made_at timestamp not null default current_timestamp
);

create table topic_texts (
    campaign_id varchar not null,
    topic_id varchar not null,
    title varchar,
    description varchar,
    source_file varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, topic_id)
);

update evaluation_measures
set measure_name = regexp_extract(measure, '^[^(@]+')
where measure_name is null;
