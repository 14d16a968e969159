-- campaign_inputs: One row per loaded qrels, intents or document-lengths file: provenance (sha256, rows).
create table campaign_inputs (
    campaign_id varchar not null,
    input_kind varchar not null check (input_kind in ('qrels', 'intents', 'doclengths')),
    source_file varchar not null,
    source_sha256 varchar not null,
    row_count bigint not null,
    loaded_at timestamp not null default current_timestamp
);
