-- reads: intent_input
-- writes: intents
-- params: $campaign_id
-- intent_insert: store the checked intents of one intents input. Parameters: $campaign_id.
insert into intents (campaign_id, topic_id, intent_id, probability, intent_type)
select $campaign_id, topic_id, intent_id, probability, intent_type
from intent_input
where not is_blank
