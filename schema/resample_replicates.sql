-- resample_replicates: one row per (replicate set, replicate b = 1..B): the draw. Bootstrap: the n topic
-- positions drawn (0-based, into resample_sets.topic_ids); signflip: n flags (1 = swap the pair's scores).
-- Logical key (replicate_set_id, replicate), kept by pyeval (no index).
create table resample_replicates (
    replicate_set_id bigint not null,
    replicate integer not null,
    draw integer[] not null
);
