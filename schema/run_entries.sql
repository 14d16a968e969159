-- run_entries: One row per retrieved document: (campaign, run, topic, doc) is unique (checked on load).
-- rank_given: the rank column as given; file_position: the line number in the source file;
-- trec_rank: the rank under the default ordering (score desc, docno desc), set on load.
create table run_entries (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    doc_id varchar not null,
    rank_given bigint not null,
    score double not null,
    file_position bigint not null,
    trec_rank bigint not null
);
