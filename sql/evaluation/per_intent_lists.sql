-- reads: evaluation_intent_judgments, evaluation_ranks, run_entries
-- produces: evaluation_lists (run_id, topic_id, num_ret)
-- grain: run_id, topic_id
-- params: $max_depth, $campaign_id, $runs, $judged_only
-- per_intent_lists (temp table evaluation_lists of the per-intent staging): the length of every
-- ranked list, once per listed intent of its topic (as evaluation_lists: the depth cut, and with
-- judged_only the judged documents).
with retrieved as (
    select
        run_id,
        topic_id,
        least(count(*), $max_depth) as num_ret
    from run_entries
    where campaign_id = $campaign_id and list_contains($runs, run_id)
    group by run_id, topic_id
),

intent_lists as (
    select distinct
        topic_id,
        source_topic_id
    from evaluation_intent_judgments
),

judged as (
    select
        run_id,
        topic_id,
        count(*) as num_ret
    from evaluation_ranks
    group by run_id, topic_id
)

select
    retrieved.run_id,
    intent_lists.topic_id,
    case when $judged_only then coalesce(judged.num_ret, 0) else retrieved.num_ret end as num_ret
from retrieved
inner join intent_lists on retrieved.topic_id = intent_lists.source_topic_id
left join judged
    on retrieved.run_id = judged.run_id and intent_lists.topic_id = judged.topic_id
