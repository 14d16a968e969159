-- reads: qrels_input
-- writes: qrels_by_set
-- params: $campaign_id, $judgment_set
-- qrels_insert: store the checked judgments of one qrels input. Parameters: $campaign_id.
insert into qrels_by_set (campaign_id, judgment_set, topic_id, intent_id, doc_id, level)
select $campaign_id, $judgment_set, topic_id, intent_id, doc_id, level
from qrels_input
where not is_blank
