-- campaigns: One row per campaign: a test collection (topics, judgments, intents) and its settings.
-- qrels_kind: 'adhoc' (one judgment per topic and document) or 'diversity' (per intent);
-- source_campaign_id: the campaign this one was derived from (variants, 2T conversions), else null.
create table campaigns (
    campaign_id varchar primary key,
    description varchar,
    qrels_kind varchar check (qrels_kind in ('adhoc', 'diversity')),
    qrels_format varchar,
    source_campaign_id varchar,
    created_at timestamp not null default current_timestamp
);
