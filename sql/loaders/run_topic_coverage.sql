-- run_topic_coverage: how the topics of a staged run meet the campaign's qrels topics.
-- Reads: run_input, qrels. Parameters: $campaign_id.
-- Returns: topics in the run, run topics without judgments (ignored when evaluating), and
-- judged topics absent from the run (they score 0 under the default topic policy).
with run_topics as (
    select distinct topic_id
    from run_input
),

judged_topics as (
    select distinct topic_id
    from qrels
    where campaign_id = $campaign_id
)

select
    (select count(*) from run_topics) as run_topics,
    (
        select count(*) from run_topics
        where topic_id not in (select topic_id from judged_topics)
    ) as unjudged_topics,
    (
        select count(*) from judged_topics
        where topic_id not in (select topic_id from run_topics)
    ) as missing_topics,
    (select count(*) from run_input) as entries,
    (select count(distinct run_tag) from run_input) as distinct_tags,
    (select arg_min(run_tag, line_number) from run_input) as first_tag
