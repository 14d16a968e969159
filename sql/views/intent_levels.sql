-- reads: qrels_by_set
-- produces: intent_levels (campaign_id, judgment_set, topic_id, intent_id, level, judgments)
-- grain: campaign_id, judgment_set, topic_id, intent_id, level
-- params: none
-- intent_levels: one row per (campaign_id, topic_id, intent_id, level): how many documents the
-- qrels judge at that level for that intent. Ad hoc judgments have intent_id = '' (their rows
-- are topic_levels'); diversity judgments one row per intent (NTCIR Dqrels' intent 0, "relevant
-- to no intent", is stored as ''). Negative levels are kept.
select
    campaign_id,
    judgment_set,
    topic_id,
    intent_id,
    level,
    count(*) as judgments
from qrels_by_set
group by campaign_id, judgment_set, topic_id, intent_id, level
