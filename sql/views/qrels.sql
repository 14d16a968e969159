-- reads: campaigns, qrels_by_set
-- produces: qrels (campaign_id, topic_id, intent_id, doc_id, level, judgment_set)
-- grain: campaign_id, topic_id, intent_id, doc_id
-- params: none
-- qrels: one row per judgment (campaign, topic, intent, document) of each campaign's default
-- judgment set (campaigns.default_judgment_set, 'official' unless `pyeval judgments default`
-- changed it; docs/judgments.md). Every set is in qrels_by_set. Ad hoc judgments have
-- intent_id = ''; level is the raw integer label.
-- Portable SQL (DuckDB and PostgreSQL).
select qrels_by_set.*
from qrels_by_set
inner join campaigns
    on qrels_by_set.campaign_id = campaigns.campaign_id
    and qrels_by_set.judgment_set = campaigns.default_judgment_set
