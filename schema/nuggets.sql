-- nuggets: One row per nugget of a bank: (campaign, bank, topic, nugget_id) is unique (checked on
-- load, no index). nugget_number is the nugget's 1-based place in its topic's list; a file without
-- ids (nuggetizer's JSONL) gets nugget_id = the number as text. importance vital | okay, creator
-- human | llm (docs/rag.md).
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
