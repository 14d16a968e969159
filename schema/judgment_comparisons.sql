-- judgment_comparisons: One row per comparison of two judgment sets of a campaign (`pyeval judgments
-- compare`; docs/judgments.md): labels (label agreement) or scores of one measure (ranking agreement),
-- with its settings (JSON) and warnings.
create table judgment_comparisons (
    comparison_id bigint primary key,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    comparison varchar not null check (comparison in ('labels', 'scores')),
    measure varchar,
    settings varchar,
    warnings varchar,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);
