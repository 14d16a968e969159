-- run_summary: what a load needs to know of a staged run, in one pass over its lines: whether a
-- document is retrieved twice for a topic (run_problems.sql then names the lines), what the load
-- reports (lines, distinct run tags, the first line's tag), and how the run's topics meet the
-- campaign's qrels topics: run topics without judgments are ignored when evaluating, judged
-- topics absent from the run score 0 under the default topic policy.
-- Reads: run_input, qrels. Parameters: $campaign_id.
-- Duplicates are counted exactly (a 64-bit hash screen was tried: DuckDB's hash() collides on
-- ClueWeb docnos).
with run_topics as materialized (
    select
        topic_id,
        count(*) as entries,
        count(distinct doc_id) as documents,
        min(line_number) as first_line,
        arg_min(run_tag, line_number) as first_tag,
        list(distinct run_tag) as run_tags
    from run_input
    group by topic_id
),

judged_topics as (
    select distinct topic_id
    from qrels
    where campaign_id = $campaign_id
)

select
    (select bool_or(entries > documents) from run_topics) as has_duplicates,
    (select count(*) from run_topics) as run_topics,
    (
        select count(*) from run_topics
        where topic_id not in (select topic_id from judged_topics)
    ) as unjudged_topics,
    (
        select count(*) from judged_topics
        where topic_id not in (select topic_id from run_topics)
    ) as missing_topics,
    (select sum(entries)::bigint from run_topics) as entries,
    (select count(distinct run_tag) from (select unnest(run_tags) as run_tag from run_topics)) as distinct_tags,
    (select arg_min(first_tag, first_line) from run_topics) as first_tag
