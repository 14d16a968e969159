-- answers: One row per generated answer (campaign, run, topic), unique (checked on load, no index):
-- its length in words (as the file gives it, else counted: docs/rag.md), the line of its file and
-- the file with the sha256 of its content. Its sentences, citations and references are in
-- answer_sentences, answer_citations and answer_references; the run is a row of runs.
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
