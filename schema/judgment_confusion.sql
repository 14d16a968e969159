-- judgment_confusion: One row per (comparison, topic, reference level, candidate level): how many
-- units the two sets label so, per topic and overall (topic_id null); a null level: not judged by
-- that set. Logical key (comparison_id, topic_id, reference_level, candidate_level).
create table judgment_confusion (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    topic_id varchar,
    reference_level integer,
    candidate_level integer,
    documents bigint not null
);
