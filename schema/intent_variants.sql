-- intent_variants: One row per (campaign, variant, topic, intent): Pr(i|q) under a named probability
-- variant of the campaign (loaded or generated uniform / non-uniform); 'given' (the intents table)
-- is not stored here.
create table intent_variants (
    campaign_id varchar not null,
    variant varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    primary key (campaign_id, variant, topic_id, intent_id)
);
