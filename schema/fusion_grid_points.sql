-- fusion_grid_points: One row per point of a fusion grid (migration 0013): the parameters that
-- vary (JSON) and the measure's mean over the training and the test topics.
create table fusion_grid_points (
    grid_id bigint not null,
    point_id integer not null,
    parameters varchar not null,
    train_mean double,
    test_mean double,
    train_topics integer not null,
    test_topics integer not null,
    primary key (grid_id, point_id)
);
