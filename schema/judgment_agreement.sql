-- judgment_agreement: One row per (comparison, topic, coefficient, threshold): a label-agreement
-- coefficient of two judgment sets (docs/judgments.md section 4), per topic and overall (topic_id
-- null), named exactly; value null (with a warning) where it is undefined. Logical key
-- (comparison_id, topic_id, coefficient, threshold).
create table judgment_agreement (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    topic_id varchar,
    coefficient varchar not null,
    threshold integer,
    value double,
    units bigint not null,
    reference_only bigint not null,
    candidate_only bigint not null,
    warning varchar
);
