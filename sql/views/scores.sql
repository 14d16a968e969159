-- reads: score_history
-- produces: scores (campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at,
--           judgment_set)
-- grain: campaign_id, judgment_set, run_id, topic_id, measure
-- params: none
-- scores: the public per-topic results, one row per (campaign_id, run_id, topic_id, measure).
-- Reads: score_history (every value ever stored, with its evaluation_id).
-- judgment_set: the judgment set the value was computed under (docs/judgments.md); a campaign
-- evaluated under several sets has one row per set: filter on judgment_set = 'official' for the
-- official qrels' values.
-- Shows the value of the latest evaluation of each key whose inputs still hold, with that
-- evaluation's id and time; every value stays in score_history (and topic_scores).
-- Portable SQL (DuckDB and PostgreSQL).
select
    campaign_id,
    run_id,
    topic_id,
    measure,
    value,
    evaluation_id,
    evaluated_at,
    judgment_set
from score_history
where is_latest
