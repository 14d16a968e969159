-- reads: evaluation_levels, evaluation_lists
-- produces: evaluation_pairs (run_id, topic_id, num_ret, in_run, empty_list)
-- grain: run_id, topic_id
-- params: $runs, $judged_only, $max_depth, $topic_policy
-- evaluation_pairs: one row per (run_id, topic_id) an evaluation scores, with the list length
-- and whether the run has the topic at all (in_run: false for a judged topic the run lacks).
-- empty_list: whether the list trec_eval evaluates is empty: the run's list when -J or -M left
-- nothing of it; for a topic the run lacks, trec_eval 10 -c's placeholder list (one unjudged
-- document, trec_eval.c bogus_ranking), which -J removes, as does -M 0. Measures that divide
-- by the list length (IPrec, from num_rel_ret / num_ret) are then undefined, as in trec_eval.
-- Reads: the judged topics (evaluation_levels), evaluation_lists.
-- Parameters: $runs, $max_depth, $judged_only (as evaluation_lists), $topic_policy:
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
    evaluation_lists.run_id is not null as in_run,
    case
        when evaluation_lists.run_id is not null then evaluation_lists.num_ret = 0
        else $judged_only or $max_depth < 1
    end as empty_list
from runs
cross join judged_topics
left join evaluation_lists
    on runs.run_id = evaluation_lists.run_id and judged_topics.topic_id = evaluation_lists.topic_id
where $topic_policy = 'qrels' or evaluation_lists.run_id is not null
