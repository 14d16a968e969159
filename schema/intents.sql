-- intents: One row per (campaign, judgment set, topic, intent): Pr(i|q) as given, and the intent
-- type (inf | nav). judgment_set: the set these intents belong to (migration 0011; 'official').
create table intents (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    intent_type varchar not null default 'inf' check (intent_type in ('inf', 'nav')),
    judgment_set varchar not null default 'official',
    primary key (campaign_id, judgment_set, topic_id, intent_id)
);
