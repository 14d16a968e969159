-- reads: current_scores
-- produces: scores_by_set (campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at,
--           judgment_set, aggregate, higher_is_better)
-- grain: campaign_id, judgment_set, run_id, topic_id, measure
-- params: none
-- scores_by_set: the public per-topic results under every judgment set, one row per (campaign_id,
-- judgment_set, run_id, topic_id, measure); the view scores shows each campaign's default set.
-- Reads: current_scores, the stored current values (migration 0015), kept equal to
-- score_history_by_set's is_latest rows by every evaluation and every load that makes values stale
-- (pyeval/core/archive.py): a query reads stored rows, however long the history.
-- judgment_set: the judgment set the value was computed under (docs/judgments.md); a campaign
-- evaluated under several sets has one row per set: filter on judgment_set.
-- Shows the value of the latest evaluation of each key whose inputs still hold, with that
-- evaluation's id and time; every value stays in score_history_by_set (and topic_scores).
-- aggregate, higher_is_better: from the measure catalogue (measures, stored with each current
-- value by pyeval/core/archive.py): how the measure combines
-- over topics (mean, sum, gmean) and its direction, so that a dashboard aggregates per-topic
-- values as pyeval does (SUM for a sum measure such as NumRet, never AVG) and orders them right.
-- Portable SQL (DuckDB and PostgreSQL).
select
    campaign_id,
    run_id,
    topic_id,
    measure,
    value,
    evaluation_id,
    evaluated_at,
    judgment_set,
    aggregate,
    higher_is_better
from current_scores
