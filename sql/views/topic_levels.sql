-- reads: qrels_by_set
-- produces: topic_levels (campaign_id, judgment_set, topic_id, level, judgments)
-- grain: campaign_id, judgment_set, topic_id, level
-- params: none
-- topic_levels: one row per (campaign_id, topic_id, level): how many documents of the topic's
-- ad hoc qrels carry that level (trec_eval's rel_levels, with negative levels kept).
-- Reads: qrels (intent_id = '', the ad hoc judgments).
select
    campaign_id,
    judgment_set,
    topic_id,
    level,
    count(*) as judgments
from qrels_by_set
where intent_id = ''
group by campaign_id, judgment_set, topic_id, level
