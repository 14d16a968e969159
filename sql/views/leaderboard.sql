-- reads: campaigns, leaderboard_by_set
-- produces: leaderboard (campaign_id, run_id, measure, value, position, ranked_runs,
--           higher_is_better, system, team, run_date, tags, baseline_run_id, baseline_value,
--           difference, test, p_adjusted, versus_baseline, topics, evaluation_id, evaluated_at,
--           risk_baseline, risk_alpha, urisk, trisk, trisk_p, zrisk, georisk, judgment_set, pooled)
-- grain: campaign_id, run_id, measure
-- params: none
-- leaderboard: one row per (campaign_id, run_id, measure) of run_means: the leaderboard of each
-- campaign's default judgment set (campaigns.default_judgment_set; docs/judgments.md): the
-- run's value and rank among the campaign's runs, its tags and metadata, the comparison with the
-- campaign's baseline run and the latest significance test and risk experiment under that set
-- (leaderboard_by_set, which has every set's and says how each column is made).
-- Portable SQL (DuckDB and PostgreSQL).
select leaderboard_by_set.*
from leaderboard_by_set
inner join campaigns
    on leaderboard_by_set.campaign_id = campaigns.campaign_id
    and leaderboard_by_set.judgment_set = campaigns.default_judgment_set
