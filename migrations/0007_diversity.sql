-- 0007_diversity: diversity evaluation (issue 5). Intent probability variants: a campaign keeps
-- the probabilities it was loaded with (intents) and any number of named variants, loaded from
-- a file or generated uniform or non-uniform (intent_variants; measures choose one with their
-- probs parameter). Derived campaigns ("2T" conversions of a diversity campaign to ad hoc
-- qrels) name their source in campaigns.source_campaign_id and how they were derived in
-- campaign_derivations.
-- Forward-only: never edit this file once merged.

create table intent_variants (
    campaign_id varchar not null,
    variant varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    primary key (campaign_id, variant, topic_id, intent_id)
);

create table campaign_derivations (
    campaign_id varchar primary key,
    source_campaign_id varchar not null,
    derivation varchar not null,
    parameters varchar not null,
    created_at timestamp not null default current_timestamp
);
