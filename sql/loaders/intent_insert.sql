-- reads: intent_input
-- writes: intents_by_set
-- params: $campaign_id, $judgment_set
-- intent_insert: store the checked intents of one intents input. Parameters: $campaign_id.
insert into intents_by_set (campaign_id, judgment_set, topic_id, intent_id, probability, intent_type)
select $campaign_id, $judgment_set, topic_id, intent_id, probability, intent_type
from intent_input
where not is_blank
