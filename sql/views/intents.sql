-- reads: campaigns, intents_by_set
-- produces: intents (campaign_id, topic_id, intent_id, probability, intent_type, judgment_set)
-- grain: campaign_id, topic_id, intent_id
-- params: none
-- intents: one row per (campaign, topic, intent) of each campaign's default judgment set
-- (campaigns.default_judgment_set; docs/judgments.md): Pr(i|q) and the intent type (inf | nav).
-- Every set is in intents_by_set.
-- Portable SQL (DuckDB and PostgreSQL).
select intents_by_set.*
from intents_by_set
inner join campaigns
    on intents_by_set.campaign_id = campaigns.campaign_id
    and intents_by_set.judgment_set = campaigns.default_judgment_set
