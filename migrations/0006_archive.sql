-- 0006_archive: the longitudinal archive (issue 9). An evaluation becomes a complete, immutable
-- record: the inputs it read (evaluation_inputs: the sha256 of the campaign's qrels, intents
-- and document lengths, of each run and of each stored gain profile), its measures with every
-- parameter (evaluation_measures) and the means it printed (evaluation_means). Stored scores
-- are never deleted any more: the view scores hides the values whose inputs were replaced
-- since (sql/views/stale_results.sql). Runs get metadata for trend queries: system, team,
-- run_date, and any number of tags (run_tags).
-- Reads and writes only tables of 0001-0004, so it applies after 0005 whatever 0005 holds.
-- Forward-only: never edit this file once merged.

alter table runs add column system varchar;
alter table runs add column team varchar;
alter table runs add column run_date date;

create table run_tags (
    campaign_id varchar not null,
    run_id varchar not null,
    tag varchar not null,
    primary key (campaign_id, run_id, tag)
);

create table evaluation_inputs (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    input_kind varchar not null check (input_kind in ('qrels', 'intents', 'doclengths', 'run', 'gains')),
    input_name varchar not null default '',
    source_file varchar,
    source_sha256 varchar not null,
    primary key (evaluation_id, input_kind, input_name)
);

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

create table evaluation_means (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    run_id varchar not null,
    measure varchar not null,
    value double,
    topics bigint not null,
    primary key (evaluation_id, run_id, measure)
);

-- Evaluations stored before this migration: until now the loaders deleted every score whose
-- qrels or run was replaced, so the scores that remain were computed from the inputs the
-- warehouse holds now. Record those (for the evaluations that still have scores), and the
-- measures they stored; their parameters, aggregates and means were not recorded (null, none).
insert into evaluation_inputs (evaluation_id, campaign_id, input_kind, input_name, source_file, source_sha256)
with evaluated as (
    select distinct evaluation_id, campaign_id
    from topic_scores
),

latest_inputs as (
    select campaign_id, input_kind, source_file, source_sha256
    from campaign_inputs
    qualify row_number() over (partition by campaign_id, input_kind order by loaded_at desc) = 1
)

select evaluated.evaluation_id, evaluated.campaign_id, latest_inputs.input_kind, '', latest_inputs.source_file,
    latest_inputs.source_sha256
from evaluated
inner join latest_inputs on evaluated.campaign_id = latest_inputs.campaign_id;

insert into evaluation_inputs (evaluation_id, campaign_id, input_kind, input_name, source_file, source_sha256)
with evaluated_runs as (
    select distinct evaluation_id, campaign_id, run_id
    from topic_scores
)

select evaluated_runs.evaluation_id, evaluated_runs.campaign_id, 'run', evaluated_runs.run_id, runs.source_file,
    runs.source_sha256
from evaluated_runs
inner join runs on evaluated_runs.campaign_id = runs.campaign_id and evaluated_runs.run_id = runs.run_id;

insert into evaluation_measures (evaluation_id, measure)
select distinct evaluation_id, measure
from topic_scores;
