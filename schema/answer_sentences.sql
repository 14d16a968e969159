-- answer_sentences: One row per sentence of an answer: (campaign, run, topic, sentence_number) is
-- unique, sentence_number 1-based in the answer's order (checked on load, no index).
create table answer_sentences (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    sentence_number integer not null check (sentence_number >= 1),
    text varchar not null
);
