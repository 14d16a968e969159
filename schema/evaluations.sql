-- evaluations: One row per evaluation: when, by which pyeval version, under which ordering policy.
create table evaluations (
    evaluation_id bigint primary key,
    campaign_id varchar not null,
    created_at timestamp not null default current_timestamp,
    pyeval_version varchar not null,
    ordering varchar not null,
    settings varchar,
    judgment_set varchar not null default 'official'
);
