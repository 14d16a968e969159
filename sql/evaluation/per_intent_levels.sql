-- per_intent_levels (temp table evaluation_levels of the per-intent staging): one row per
-- (intent list, level): the documents judged at that level for the intent.
-- Reads: evaluation_intent_judgments.
select
    topic_id,
    level,
    count(*) as judgments
from evaluation_intent_judgments
group by topic_id, level
