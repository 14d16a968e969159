-- campaign_inputs: One row per current qrels, intents or document-lengths input of a campaign:
-- provenance (file, sha256 of its content, rows). Replacing an input replaces its row.
create table campaign_inputs (
    campaign_id varchar not null,
    input_kind varchar not null check (input_kind in ('qrels', 'intents', 'doclengths')),
    source_file varchar not null,
    source_sha256 varchar not null,
    row_count bigint not null,
    loaded_at timestamp not null default current_timestamp,
    judgment_set varchar not null default 'official'
);
