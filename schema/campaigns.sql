-- campaigns: One row per campaign: a test collection (topics, judgments, intents) and its settings.
-- qrels_kind: 'adhoc' (one judgment per topic and document) or 'diversity' (per intent);
-- source_campaign_id: the campaign this one was derived from (variants, 2T conversions), else null;
-- default_judgment_set: the judgment set a query that names none reads (views qrels, scores, ...;
-- migration 0019), 'official' unless set by `pyeval judgments default`.
create table campaigns (
    campaign_id varchar primary key,
    description varchar,
    qrels_kind varchar check (qrels_kind in ('adhoc', 'diversity')),
    qrels_format varchar,
    source_campaign_id varchar,
    created_at timestamp not null default current_timestamp,
    default_judgment_set varchar not null default 'official'
);
