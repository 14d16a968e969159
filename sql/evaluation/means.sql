-- reads: evaluation_scores, requested_aggregates
-- produces: means (run_id, measure, value, topics)
-- grain: run_id, measure
-- params: $in_topic_order
-- means: one row per (run_id, measure): the per-topic values combined over topics.
-- Reads: evaluation_scores(run_id, topic_id, measure, value),
--        requested_aggregates(measure, aggregate).
-- aggregate: 'mean' (arithmetic), 'sum' (counts, trec_eval num_*), 'gmean' (geometric mean
-- with values floored at 1e-5: trec_eval gm_map and gm_bpref). Sums run in topic order, so
-- the last bit of a mean does not depend on DuckDB's threads. A mean is favg's compensated
-- (Kahan) sum divided by the topics, which gives 0.27 for fifty P@10 values summing to 13.5
-- where adding them one by one drifts to 0.2699999999999999; $in_topic_order: the plain sum
-- in topic order instead, trec_eval's, which its drop-in prints byte for byte.
select
    evaluation_scores.run_id,
    evaluation_scores.measure,
    case requested_aggregates.aggregate
        when 'sum' then sum(evaluation_scores.value order by evaluation_scores.topic_id)
        when 'gmean' then exp(
            sum(ln(greatest(evaluation_scores.value, 1e-5)) order by evaluation_scores.topic_id)
            / count(*)
        )
        else case
            when $in_topic_order
                then sum(evaluation_scores.value order by evaluation_scores.topic_id) / count(*)
            else favg(evaluation_scores.value order by evaluation_scores.topic_id)
        end
    end as value,
    count(*) as topics
from evaluation_scores
inner join requested_aggregates on evaluation_scores.measure = requested_aggregates.measure
group by evaluation_scores.run_id, evaluation_scores.measure, requested_aggregates.aggregate
