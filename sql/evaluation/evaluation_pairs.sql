-- evaluation_pairs: one row per (run_id, topic_id) an evaluation scores, with the list length
-- and whether the run has the topic at all (in_run: false for a judged topic the run lacks).
-- Reads: the judged topics (evaluation_levels), evaluation_lists.
-- Parameters: $runs, $topic_policy:
--   'qrels'         every judged topic for every run; a topic the run lacks has num_ret = 0
--                   (trec_eval -c, ir_measures); pyeval's default
--   'intersection'  judged topics the run retrieved for (trec_eval 9 / pytrec_eval without -c)
with judged_topics as (
    select distinct topic_id
    from evaluation_levels
),

runs as (
    select unnest($runs) as run_id
)

select
    runs.run_id,
    judged_topics.topic_id,
    coalesce(evaluation_lists.num_ret, 0) as num_ret,
    evaluation_lists.run_id is not null as in_run
from runs
cross join judged_topics
left join evaluation_lists
    on runs.run_id = evaluation_lists.run_id and judged_topics.topic_id = evaluation_lists.topic_id
where $topic_policy = 'qrels' or evaluation_lists.run_id is not null
