-- reads: evaluations, stale_results, topic_scores
-- produces: score_history_by_set (evaluation_id, evaluated_at, campaign_id, judgment_set, run_id, topic_id,
--           measure, value, is_current, is_latest)
-- grain: evaluation_id, campaign_id, run_id, topic_id, measure
-- params: none
-- score_history_by_set: one row per stored per-topic value (evaluation_id, campaign_id, run_id,
-- topic_id, measure): every value ever stored under every judgment set, never overwritten, with
-- its evaluation's time and the judgment set it was computed under (judgment_set); the view
-- score_history shows the values of each campaign's default set.
-- is_current: the qrels, run and gain profile it was computed from are still the warehouse's.
-- is_latest: the value the view scores_by_set shows (the current value of the latest evaluation
-- under its set).
-- Portable SQL (DuckDB and PostgreSQL).
with flagged_scores as (
    select
        topic_scores.evaluation_id,
        evaluations.created_at as evaluated_at,
        topic_scores.campaign_id,
        topic_scores.judgment_set,
        topic_scores.run_id,
        topic_scores.topic_id,
        topic_scores.measure,
        topic_scores.value,
        stale_results.evaluation_id is null as is_current
    from topic_scores
    left join evaluations on topic_scores.evaluation_id = evaluations.evaluation_id
    left join stale_results
        on topic_scores.evaluation_id = stale_results.evaluation_id
        and topic_scores.run_id = stale_results.run_id
        and topic_scores.measure = stale_results.measure
)

select
    evaluation_id,
    evaluated_at,
    campaign_id,
    judgment_set,
    run_id,
    topic_id,
    measure,
    value,
    is_current,
    (
        is_current
        and row_number() over (
            partition by campaign_id, judgment_set, run_id, topic_id, measure, is_current
            order by evaluation_id desc
        ) = 1
    ) as is_latest
from flagged_scores
