-- reads: topic_levels
-- produces: evaluation_levels (topic_id, level, judgments)
-- grain: topic_id, level
-- params: $campaign_id, $judgment_set
-- evaluation_levels: one row per (topic_id, level) of the evaluated campaign: how many documents
-- are judged at that level. The ad hoc staging reads the campaign's ad hoc qrels (topic_levels);
-- a diversity staging writes its own (sql/evaluation/diversity_levels.sql,
-- intent_levels_staged.sql). evaluation_pairs and evaluation_topics read it.
select
    topic_id,
    level,
    judgments
from topic_levels
where campaign_id = $campaign_id and judgment_set = $judgment_set
