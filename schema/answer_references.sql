-- answer_references: One row per entry of an answer's reference list: reference_number the 1-based
-- place in the list (the TREC RAG citation index i is reference i + 1). (campaign, run, topic,
-- reference_number) is unique (checked on load, no index).
create table answer_references (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    reference_number integer not null check (reference_number >= 1),
    doc_id varchar not null
);
