-- resample_sets: one row per replicate set (kind, campaign, topic set, B, seed[, runs]): how it was drawn
-- (NumPy PCG64, SeedSequence(seed, spawn_key)), and the sha256 of its draws (docs/resampling.md).
-- subset draws (kinds subset, disjoint_pair, bootstrap_pair: swap rates and stability) carry their subset size c.
create table resample_sets (
    replicate_set_id bigint primary key,
    kind varchar not null check (
        kind in ('bootstrap', 'signflip', 'permutation', 'subset', 'disjoint_pair', 'bootstrap_pair')
    ),
    campaign_id varchar not null,
    topic_ids varchar[] not null,
    topic_set_sha256 varchar not null,
    topic_count integer not null,
    run_count integer,
    replicates integer not null,
    seed bigint not null,
    spawn_key varchar not null,
    generator varchar not null,
    numpy_version varchar not null,
    chunk_size integer,
    draws_stored boolean not null,
    data_sha256 varchar not null,
    created_at timestamp not null default current_timestamp,
    subset_size integer
);
