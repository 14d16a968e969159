-- campaign_derivations: One row per derived campaign: its source and how it was derived ("2T"
-- conversions of a diversity campaign: derivation 'to_traditional', parameters as JSON).
create table campaign_derivations (
    campaign_id varchar primary key,
    source_campaign_id varchar not null,
    derivation varchar not null,
    parameters varchar not null,
    created_at timestamp not null default current_timestamp
);
