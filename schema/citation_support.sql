-- citation_support: One row per support judgment of a citation: does the cited document support
-- the sentence of the answer (label full | partial | none)? (campaign, judgment_set, run, topic,
-- sentence_number, doc_id) is unique (checked on load, no index); the judgment set holds the
-- provenance; source_file and source_sha256: the loaded file.
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
