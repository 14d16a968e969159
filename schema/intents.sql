-- intents: One row per (campaign, topic, intent): Pr(i|q) as given, and the intent type (inf | nav).
create table intents (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    intent_type varchar not null default 'inf' check (intent_type in ('inf', 'nav')),
    primary key (campaign_id, topic_id, intent_id)
);
