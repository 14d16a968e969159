-- reads: campaigns, score_history_by_set
-- produces: score_history (evaluation_id, evaluated_at, campaign_id, judgment_set, run_id, topic_id,
--           measure, value, is_current, is_latest)
-- grain: evaluation_id, campaign_id, run_id, topic_id, measure
-- params: none
-- score_history: one row per stored per-topic value (evaluation_id, campaign_id, run_id,
-- topic_id, measure) computed under each campaign's default judgment set
-- (campaigns.default_judgment_set; docs/judgments.md): every such value ever stored, never
-- overwritten, with its evaluation's time. Every set's values are in score_history_by_set.
-- is_current: the qrels, run and gain profile it was computed from are still the warehouse's.
-- is_latest: the value the view scores shows (the current value of the latest evaluation).
-- Portable SQL (DuckDB and PostgreSQL).
select score_history_by_set.*
from score_history_by_set
inner join campaigns
    on score_history_by_set.campaign_id = campaigns.campaign_id
    and score_history_by_set.judgment_set = campaigns.default_judgment_set
