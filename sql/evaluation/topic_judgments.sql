-- topic_judgments: one row per (topic_id, rel) threshold an evaluation needs: R (judged at or
-- above the threshold), N (judged below it, level >= 0) and the highest level.
-- Reads: topic_levels. Parameters: $campaign_id, $thresholds (list of integers).
with thresholds as (
    select unnest($thresholds) as rel
)

select
    topic_levels.topic_id,
    thresholds.rel,
    coalesce(sum(topic_levels.judgments) filter (where topic_levels.level >= thresholds.rel), 0)
        as num_rel,
    coalesce(
        sum(topic_levels.judgments) filter (
            where topic_levels.level >= 0 and topic_levels.level < thresholds.rel
        ),
        0
    ) as num_nonrel,
    max(topic_levels.level) as max_level
from topic_levels
cross join thresholds
where topic_levels.campaign_id = $campaign_id
group by topic_levels.topic_id, thresholds.rel
