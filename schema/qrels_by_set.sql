-- qrels_by_set: One row per judgment (campaign, judgment set, topic, intent, document): every
-- judgment set of every campaign (migration 0019; the view qrels shows each campaign's default
-- set). Ad hoc judgments have intent_id = '' (the empty string); diversity judgments name their
-- intent (subtopic). level is the raw integer label (TREC -2/-1 kept; NTCIR Lk stored as k).
-- (campaign, judgment set, topic, intent, document) is unique, checked on load (no index:
-- migration 0003).
create table qrels_by_set (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null default '',
    doc_id varchar not null,
    level integer not null,
    judgment_set varchar not null default 'official'
);
