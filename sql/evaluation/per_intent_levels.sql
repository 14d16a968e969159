-- reads: evaluation_intent_judgments
-- produces: evaluation_levels (topic_id, level, judgments)
-- grain: topic_id, level
-- params: none
-- per_intent_levels (temp table evaluation_levels of the per-intent staging): one row per
-- (intent list, level): the documents judged at that level for the intent.
select
    topic_id,
    level,
    count(*) as judgments
from evaluation_intent_judgments
group by topic_id, level
