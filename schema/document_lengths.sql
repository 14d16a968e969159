-- document_lengths: One row per (campaign, doc): length of the full text in characters (unique; checked on load).
create table document_lengths (
    campaign_id varchar not null,
    doc_id varchar not null,
    length bigint not null check (length >= 0)
);
