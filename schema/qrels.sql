-- qrels: One row per judgment (campaign, judgment set, topic, intent, document). Ad hoc judgments have
-- intent_id = '' (the empty string); diversity judgments name their intent (subtopic).
-- level is the raw integer label (TREC -2/-1 kept; NTCIR Lk stored as k).
-- (campaign, topic, intent, document) is unique, checked on load (no index: migration 0003).
create table qrels (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null default '',
    doc_id varchar not null,
    level integer not null,
    judgment_set varchar not null default 'official'
);
