-- reads: evaluation_measures, measures, score_history_by_set
-- writes: current_scores
-- params: $campaign_id
-- current_scores_of_campaign: the current per-topic values of campaign $campaign_id (null: of
-- every campaign, in one pass over the history), as the
-- rule of score_history_by_set's is_latest picks them (the latest evaluation of each key whose qrels,
-- run and gain profile still hold): what pyeval/core/archive.py refresh inserts after it deleted the
-- campaign's rows, in the transaction of a load or deletion that may have made values stale, and
-- rebuild (null) after it deleted every row. Stored in campaign order, so that a query of one
-- campaign reads only its row groups (DuckDB's min/max per row group).
insert into current_scores (
    campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at, judgment_set, aggregate,
    higher_is_better
)
select
    score_history_by_set.campaign_id,
    score_history_by_set.run_id,
    score_history_by_set.topic_id,
    score_history_by_set.measure,
    score_history_by_set.value,
    score_history_by_set.evaluation_id,
    score_history_by_set.evaluated_at,
    score_history_by_set.judgment_set,
    measures.aggregate,
    measures.higher_is_better
from score_history_by_set
left join evaluation_measures
    on score_history_by_set.evaluation_id = evaluation_measures.evaluation_id
    and score_history_by_set.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where score_history_by_set.is_latest and ($campaign_id is null or score_history_by_set.campaign_id = $campaign_id)
order by score_history_by_set.campaign_id, score_history_by_set.run_id
