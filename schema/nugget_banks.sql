-- nugget_banks: One row per (campaign, bank): a named set of nuggets of the campaign (a manual bank,
-- each automatic nuggetizer's; docs/rag.md), with the file it was loaded from, the sha256 of its
-- content, the format it was read as and free text. Loading nuggets creates the campaign if missing.
create table nugget_banks (
    campaign_id varchar not null,
    bank varchar not null,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    description varchar,
    format varchar not null,
    primary key (campaign_id, bank)
);
