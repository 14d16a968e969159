-- intents_by_set: One row per (campaign, judgment set, topic, intent): Pr(i|q) as given, and the
-- intent type (inf | nav), for every judgment set (migrations 0011, 0019; the view intents shows
-- each campaign's default set).
create table intents_by_set (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    intent_type varchar not null default 'inf' check (intent_type in ('inf', 'nav')),
    judgment_set varchar not null default 'official',
    primary key (campaign_id, judgment_set, topic_id, intent_id)
);
