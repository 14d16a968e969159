-- reads: qrels_by_set
-- writes: qrels_by_set
-- params: $campaign_id, $group
-- judgment_group_qrels: one judgment group of trec_eval -R qrels_jg qrels as the ad hoc qrels
-- (intent_id = '') of a campaign of its own, so that the metric engine scores it unchanged.
-- Reads: qrels of campaign 'trec_eval' (loaded as TREC diversity qrels: intent_id = the group).
-- Parameters: $campaign_id (the group's campaign), $group (the judgment group).
insert into qrels_by_set (campaign_id, topic_id, intent_id, doc_id, level)
select $campaign_id, topic_id, '', doc_id, level
from qrels_by_set
where campaign_id = 'trec_eval' and intent_id = $group
