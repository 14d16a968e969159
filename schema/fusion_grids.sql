-- fusion_grids: One row per fusion parameter grid evaluated by pyeval fuse --grid (migration
-- 0013): the fixed recipe with its parents (parameters, JSON), the measure, the judgment set,
-- the topic split, the best point (chosen on the training topics) and the run kept for it.
create table fusion_grids (
    grid_id bigint primary key,
    campaign_id varchar not null,
    method varchar not null,
    parameters varchar not null,
    measure varchar not null,
    judgment_set varchar not null default 'official',
    topic_split varchar not null,
    best_point integer,
    kept_run_id varchar,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
