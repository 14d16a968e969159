-- answer_citations: One row per citation of a sentence: the document it cites, citation_number the
-- 1-based place in the sentence's list (TREC RAG's 0-based indexes into the references are stored
-- as the documents they name). (campaign, run, topic, sentence_number, citation_number) is unique.
create table answer_citations (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    sentence_number integer not null check (sentence_number >= 1),
    citation_number integer not null check (citation_number >= 1),
    doc_id varchar not null
);
