-- 0020_answers: generated answers and their judgments (issue 41; docs/rag.md). nugget_banks and
-- nuggets: named banks of nuggets per campaign (topic, nugget id and number, text, importance
-- vital | okay, creator human | llm); answers, answer_sentences, answer_citations and
-- answer_references: each run's answer per topic, its sentences, the documents each sentence cites
-- and the run's reference list; nugget_assignments: the label (support | partial_support |
-- not_support) an assignment set (a judgment set) gives each nugget of one bank for each answer;
-- citation_support: the support label (full | partial | none) a judgment set gives each cited
-- document of a sentence. Keys are kept by the loaders (no index, as run_entries and qrels).
-- evaluation_inputs records these inputs too (input_kind 'nuggets', 'assignments', 'support',
-- 'answers'; sql/views/current_inputs.sql): DuckDB cannot alter a check constraint, so the table
-- is made again with the wider check, rows and all.
-- Forward-only: never edit this file once merged.

create table nugget_banks (
    campaign_id varchar not null,
    bank varchar not null,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    description varchar,
    format varchar not null,
    primary key (campaign_id, bank)
);

create table nuggets (
    campaign_id varchar not null,
    bank varchar not null,
    topic_id varchar not null,
    nugget_id varchar not null,
    nugget_number integer not null check (nugget_number >= 1),
    text varchar not null,
    importance varchar not null check (importance in ('vital', 'okay')),
    creator varchar not null check (creator in ('human', 'llm'))
);

create table answers (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    response_length integer not null check (response_length >= 0),
    length_given boolean not null,
    file_position bigint not null,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp
);

create table answer_sentences (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    sentence_number integer not null check (sentence_number >= 1),
    text varchar not null
);

create table answer_citations (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    sentence_number integer not null check (sentence_number >= 1),
    citation_number integer not null check (citation_number >= 1),
    doc_id varchar not null
);

create table answer_references (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    reference_number integer not null check (reference_number >= 1),
    doc_id varchar not null
);

create table nugget_assignments (
    campaign_id varchar not null,
    judgment_set varchar not null,
    bank varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    nugget_id varchar not null,
    label varchar not null check (label in ('support', 'partial_support', 'not_support')),
    assessor varchar,
    source_file varchar not null,
    source_sha256 varchar not null
);

create table citation_support (
    campaign_id varchar not null,
    judgment_set varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    sentence_number integer not null check (sentence_number >= 1),
    doc_id varchar not null,
    label varchar not null check (label in ('full', 'partial', 'none')),
    assessor varchar,
    source_file varchar not null,
    source_sha256 varchar not null
);

create table evaluation_inputs_0020 (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    input_kind varchar not null check (
        input_kind in ('qrels', 'intents', 'doclengths', 'run', 'gains', 'nuggets', 'assignments', 'support', 'answers')
    ),
    input_name varchar not null default '',
    source_file varchar,
    source_sha256 varchar not null,
    primary key (evaluation_id, input_kind, input_name)
);
insert into evaluation_inputs_0020
select evaluation_id, campaign_id, input_kind, input_name, source_file, source_sha256 from evaluation_inputs;
drop table evaluation_inputs;
alter table evaluation_inputs_0020 rename to evaluation_inputs;
