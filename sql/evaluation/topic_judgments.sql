-- reads: evaluation_levels
-- produces: evaluation_topics (topic_id, rel, num_rel, num_nonrel, max_level)
-- grain: topic_id, rel
-- params: $thresholds
-- topic_judgments: one row per (topic_id, rel) threshold an evaluation needs: R (judged at or
-- above the threshold), N (judged below it, level >= 0) and the highest level.
-- Reads: evaluation_levels. Parameters: $thresholds (list of integers).
with thresholds as (
    select unnest($thresholds) as rel
)

select
    evaluation_levels.topic_id,
    thresholds.rel,
    coalesce(sum(evaluation_levels.judgments) filter (where evaluation_levels.level >= thresholds.rel), 0)
        as num_rel,
    coalesce(
        sum(evaluation_levels.judgments) filter (
            where evaluation_levels.level >= 0 and evaluation_levels.level < thresholds.rel
        ),
        0
    ) as num_nonrel,
    max(evaluation_levels.level) as max_level
from evaluation_levels
cross join thresholds
group by evaluation_levels.topic_id, thresholds.rel
