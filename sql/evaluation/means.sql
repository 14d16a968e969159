-- reads: evaluation_scores, requested_aggregates
-- produces: means (run_id, measure, value, topics)
-- grain: run_id, measure
-- params: none
-- means: one row per (run_id, measure): the per-topic values combined over topics.
-- Reads: evaluation_scores(run_id, topic_id, measure, value),
--        requested_aggregates(measure, aggregate).
-- aggregate: 'mean' (arithmetic), 'sum' (counts, trec_eval num_*), 'gmean' (geometric mean
-- with values floored at 1e-5: trec_eval gm_map and gm_bpref). Sums run in topic order, as
-- trec_eval's do, so the last bit of a mean does not depend on DuckDB's threads.
select
    evaluation_scores.run_id,
    evaluation_scores.measure,
    case requested_aggregates.aggregate
        when 'sum' then sum(evaluation_scores.value order by evaluation_scores.topic_id)
        when 'gmean' then exp(
            sum(ln(greatest(evaluation_scores.value, 1e-5)) order by evaluation_scores.topic_id)
            / count(*)
        )
        else sum(evaluation_scores.value order by evaluation_scores.topic_id) / count(*)
    end as value,
    count(*) as topics
from evaluation_scores
inner join requested_aggregates on evaluation_scores.measure = requested_aggregates.measure
group by evaluation_scores.run_id, evaluation_scores.measure, requested_aggregates.aggregate
