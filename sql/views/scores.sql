-- reads: campaigns, scores_by_set
-- produces: scores (campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at,
--           judgment_set, aggregate, higher_is_better)
-- grain: campaign_id, run_id, topic_id, measure
-- params: none
-- scores: the public per-topic results, one row per (campaign_id, run_id, topic_id, measure):
-- the current value (the latest evaluation whose inputs still hold; scores_by_set) under each
-- campaign's default judgment set (campaigns.default_judgment_set, 'official' unless changed;
-- docs/judgments.md), so that a query naming no set never mixes two sets' values. Values under
-- the other sets are in scores_by_set.
-- Portable SQL (DuckDB and PostgreSQL).
select scores_by_set.*
from scores_by_set
inner join campaigns
    on scores_by_set.campaign_id = campaigns.campaign_id
    and scores_by_set.judgment_set = campaigns.default_judgment_set
