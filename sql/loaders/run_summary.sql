-- reads: qrels_by_set, run_batch
-- produces: run_summary (file_index, may_have_duplicates, run_topics, unjudged_topics,
--           missing_topics, entries, distinct_tags, first_tag)
-- grain: file_index
-- params: $campaign_id
-- run_summary: what a load needs to know of each staged run, in one pass over the lines of all
-- of them: whether a document is retrieved twice for a topic (run_problems.sql then names the
-- lines), what the load reports (lines, distinct run tags, the first line's tag), and how the
-- run's topics meet the campaign's qrels topics: run topics without judgments are ignored when
-- evaluating, judged topics absent from the run score 0 under the default topic policy.
-- Reads: run_batch (every line of the load's runs, pyeval/loaders/runs.py _stage_batch), qrels. Parameters: $campaign_id.
-- One row per run: file_index, may_have_duplicates, run_topics, unjudged_topics, missing_topics,
-- entries, distinct_tags, first_tag.
-- Duplicates are screened by the documents' 64-bit hashes (8 bytes a line where the strings take
-- about 40: the load's peak memory and about a third of this query's time). Two documents whose
-- hashes collide make a false alarm, never a miss: the loader then asks run_problems.sql, which
-- compares the docnos themselves, and goes on when it finds none. The hash is DuckDB's hash of
-- the docno xor that of the reversed docno: DuckDB's string hash alone collides on docnos that
-- differ by digits in two places (ClueWeb's clueweb09-en0007-75-02992 and ...-en0009-75-02932:
-- 17,320 collisions among 2.96M distinct docnos, enough to send most 1000-document topics of a
-- large run to the exact check); the pair had none there (the 3000-topic run of bench/bench_campaign.py).
with run_topics as materialized (
    select
        file_index,
        topic_id,
        count(*) as entries,
        count(distinct xor(hash(doc_id), hash(reverse(doc_id)))) as distinct_hashes,
        min(line_number) as first_line,
        arg_min(run_tag, line_number) as first_tag,
        list(distinct run_tag) as run_tags
    from run_batch
    group by file_index, topic_id
),

judged_topics as (
    select distinct topic_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = 'official'
)

select
    run_topics.file_index,
    bool_or(run_topics.entries > run_topics.distinct_hashes) as may_have_duplicates,
    count(*) as run_topics,
    count(*) filter (where judged_topics.topic_id is null) as unjudged_topics,
    (select count(*) from judged_topics) - count(judged_topics.topic_id) as missing_topics,
    sum(run_topics.entries)::bigint as entries,
    len(list_distinct(flatten(list(run_topics.run_tags)))) as distinct_tags,
    arg_min(run_topics.first_tag, run_topics.first_line) as first_tag
from run_topics
left join judged_topics on run_topics.topic_id = judged_topics.topic_id
group by run_topics.file_index
