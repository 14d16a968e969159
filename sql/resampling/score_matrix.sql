-- reads: scores_by_set, topic_scores
-- produces: score_matrix (run_id, topic_id, value, evaluation_id)
-- grain: run_id, topic_id
-- params: $campaign_id, $measure, $judgment_set
-- score_matrix: the per-topic values of one measure for a campaign's runs, as the public view
-- scores_by_set shows them (the latest stored value of each run and topic), plus the latest evaluation
-- that stored the measure for that run. pyeval/resampling/matrix.py turns it into the topic x
-- run matrix X of docs/resampling.md (missing cells filled with 0). $judgment_set: the judgment
-- set the scores were computed under (docs/judgments.md).
select
    s.run_id,
    s.topic_id,
    s.value,
    (
        select max(t.evaluation_id)
        from topic_scores as t
        where
            t.campaign_id = s.campaign_id and t.judgment_set = s.judgment_set and t.measure = s.measure
            and t.run_id = s.run_id
    ) as evaluation_id
from scores_by_set as s
where s.campaign_id = $campaign_id and s.judgment_set = $judgment_set and s.measure = $measure
order by s.run_id, s.topic_id
