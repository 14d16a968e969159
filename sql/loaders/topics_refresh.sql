-- reads: intents_by_set, qrels_by_set
-- writes: topics
-- params: $campaign_id
-- topics_refresh: insert the topic set of a campaign: every topic of its qrels or intents.
-- Parameters: $campaign_id. (The caller first deletes the campaign's rows of topics.)
insert into topics (campaign_id, topic_id)
select distinct $campaign_id, topic_id
from (
    select topic_id from qrels_by_set where campaign_id = $campaign_id and judgment_set = 'official'
    union
    select topic_id from intents_by_set where campaign_id = $campaign_id and judgment_set = 'official'
)
