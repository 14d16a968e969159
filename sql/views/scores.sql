-- reads: evaluation_measures, measures, score_history
-- produces: scores (campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at,
--           judgment_set, aggregate, higher_is_better)
-- grain: campaign_id, judgment_set, run_id, topic_id, measure
-- params: none
-- scores: the public per-topic results, one row per (campaign_id, run_id, topic_id, measure).
-- Reads: score_history (every value ever stored, with its evaluation_id).
-- judgment_set: the judgment set the value was computed under (docs/judgments.md); a campaign
-- evaluated under several sets has one row per set: filter on judgment_set = 'official' for the
-- official qrels' values.
-- Shows the value of the latest evaluation of each key whose inputs still hold, with that
-- evaluation's id and time; every value stays in score_history (and topic_scores).
-- aggregate, higher_is_better: from the measure catalogue (measures): how the measure combines
-- over topics (mean, sum, gmean) and its direction, so that a dashboard aggregates per-topic
-- values as pyeval does (SUM for a sum measure such as NumRet, never AVG) and orders them right.
-- Portable SQL (DuckDB and PostgreSQL).
select
    score_history.campaign_id,
    score_history.run_id,
    score_history.topic_id,
    score_history.measure,
    score_history.value,
    score_history.evaluation_id,
    score_history.evaluated_at,
    score_history.judgment_set,
    measures.aggregate,
    measures.higher_is_better
from score_history
left join evaluation_measures
    on score_history.evaluation_id = evaluation_measures.evaluation_id
    and score_history.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where score_history.is_latest
