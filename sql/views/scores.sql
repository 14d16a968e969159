-- scores: the public per-topic results, one row per (campaign_id, run_id, topic_id, measure).
-- Reads: topic_scores (every value ever stored, with its evaluation_id).
-- Shows the value of the latest evaluation of each key; history stays in topic_scores.
with latest_first as (
    select
        campaign_id,
        run_id,
        topic_id,
        measure,
        value,
        row_number() over (
            partition by campaign_id, run_id, topic_id, measure
            order by evaluation_id desc
        ) as recency
    from topic_scores
)

select campaign_id, run_id, topic_id, measure, value
from latest_first
where recency = 1
