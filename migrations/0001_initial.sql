-- 0001_initial: the stored inputs of an evaluation warehouse, and the backing table of `scores`.
-- Forward-only: never edit this file once merged; add 0002_<what>.sql instead.
-- Grains are declared by primary keys where DuckDB's index costs little; run_entries and
-- document_lengths can hold tens of millions of rows, so their grain is enforced by the
-- loaders (an ART index would make a 10-million-line load about 4x slower).

create table campaigns (
    campaign_id varchar primary key,
    description varchar,
    qrels_kind varchar check (qrels_kind in ('adhoc', 'diversity')),
    qrels_format varchar,
    source_campaign_id varchar,
    created_at timestamp not null default current_timestamp
);

create table topics (
    campaign_id varchar not null,
    topic_id varchar not null,
    primary key (campaign_id, topic_id)
);

create table intents (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    intent_type varchar not null default 'inf' check (intent_type in ('inf', 'nav')),
    primary key (campaign_id, topic_id, intent_id)
);

create table qrels (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null default '',
    doc_id varchar not null,
    level integer not null,
    primary key (campaign_id, topic_id, intent_id, doc_id)
);

create table runs (
    campaign_id varchar not null,
    run_id varchar not null,
    run_tag varchar,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);

create table run_entries (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    doc_id varchar not null,
    rank_given bigint not null,
    score double not null,
    file_position bigint not null
);

create table document_lengths (
    campaign_id varchar not null,
    doc_id varchar not null,
    length bigint not null check (length >= 0)
);

create table campaign_inputs (
    campaign_id varchar not null,
    input_kind varchar not null check (input_kind in ('qrels', 'intents', 'doclengths')),
    source_file varchar not null,
    source_sha256 varchar not null,
    row_count bigint not null,
    loaded_at timestamp not null default current_timestamp
);

create table evaluations (
    evaluation_id bigint primary key,
    campaign_id varchar not null,
    created_at timestamp not null default current_timestamp,
    pyeval_version varchar not null,
    ordering varchar not null,
    settings varchar
);

create table topic_scores (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    measure varchar not null,
    value double
);
