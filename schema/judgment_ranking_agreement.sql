-- judgment_ranking_agreement: One row per (comparison, statistic, top_k): how far the run means and
-- per-topic scores of one measure under a candidate judgment set agree with those under the
-- reference set (docs/judgments.md section 5); top_k null: all runs; value null (with a warning)
-- where it is undefined. Logical key (comparison_id, statistic, top_k).
create table judgment_ranking_agreement (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    measure varchar not null,
    statistic varchar not null,
    top_k integer,
    value double,
    runs integer not null,
    topics integer,
    warning varchar
);
