-- nugget_assignments: One row per label an assignment set gives a nugget for an answer: (campaign,
-- judgment_set, bank, run, topic, nugget) is unique (checked on load, no index). An assignment set
-- is a judgment set (judgment_sets holds its provenance) and names one bank. label support |
-- partial_support | not_support; assessor as given; source_file and source_sha256: the loaded file.
create table nugget_assignments (
    campaign_id varchar not null,
    judgment_set varchar not null,
    bank varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    nugget_id varchar not null,
    label varchar not null check (label in ('support', 'partial_support', 'not_support')),
    assessor varchar,
    source_file varchar not null,
    source_sha256 varchar not null
);
