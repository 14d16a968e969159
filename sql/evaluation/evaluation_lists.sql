-- reads: evaluation_ranks, run_entries
-- produces: evaluation_lists (run_id, topic_id, num_ret)
-- grain: run_id, topic_id
-- params: $max_depth, $campaign_id, $runs, $all_runs, $judged_only
-- evaluation_lists: one row per (run_id, topic_id) of one evaluation: the length L of the
-- ranked list after the depth cut (and, with -J, after removing unjudged documents).
with retrieved as (
    select
        run_id,
        topic_id,
        least(count(*), $max_depth) as num_ret
    from run_entries
    where campaign_id = $campaign_id and ($all_runs or list_contains($runs, run_id))
    group by run_id, topic_id
),

judged as (
    select
        run_id,
        topic_id,
        count(*) as num_ret
    from evaluation_ranks
    where level >= 0
    group by run_id, topic_id
)

select
    retrieved.run_id,
    retrieved.topic_id,
    case when $judged_only then coalesce(judged.num_ret, 0) else retrieved.num_ret end as num_ret
from retrieved
left join judged
    on retrieved.run_id = judged.run_id and retrieved.topic_id = judged.topic_id
