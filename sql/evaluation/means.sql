-- reads: evaluation_scores, requested_aggregates
-- produces: means (run_id, measure, value, topics)
-- grain: run_id, measure
-- params: $in_topic_order
-- means: one row per (run_id, measure): the per-topic values combined over topics.
-- Reads: evaluation_scores(run_id, topic_id, measure, value),
--        requested_aggregates(measure, aggregate).
-- aggregate: 'mean' (arithmetic), 'sum' (counts, trec_eval num_*), 'gmean' (geometric mean
-- with values floored at 1e-5: trec_eval gm_map and gm_bpref). Sums run in topic order, so
-- the last bit of a mean does not depend on DuckDB's threads. A mean is the exact mean of the
-- values rounded once, as Python's statistics.mean gives it (and nuggetizer's global metrics,
-- which use it): favg's compensated sum over the topics divided by their number first (within
-- an ulp), then corrected by the mean of the values' exact distances from it (each distance the
-- two doubles of a TwoSum; both sums compensated, as the distances cancel), which is small
-- enough to add without losing a bit. It gives 0.27 for fifty P@10 values summing to 13.5 where
-- adding them one by one drifts to 0.2699999999999999; $in_topic_order: the plain sum in topic
-- order instead, trec_eval's, which its drop-in prints byte for byte.
-- One select per aggregate (and per summation of a mean): an ordered aggregate sorts every group
-- it is computed for, so each (run, measure) computes its own aggregate only.
with scores as (
    select
        evaluation_scores.run_id,
        evaluation_scores.topic_id,
        evaluation_scores.measure,
        evaluation_scores.value,
        requested_aggregates.aggregate
    from evaluation_scores
    inner join requested_aggregates on evaluation_scores.measure = requested_aggregates.measure
),

-- the mean, first within an ulp or two: favg's compensated (Kahan) sum over the topics
rough_means as (
    select
        run_id,
        measure,
        favg(value order by topic_id) as rough_mean
    from scores
    where aggregate not in ('sum', 'gmean') and not $in_topic_order
    group by run_id, measure
),

-- each value's distance from it without rounding, as two doubles: the rounded difference and
-- its error (Knuth's TwoSum of value and -rough_mean)
differences as (
    select
        scores.run_id,
        scores.measure,
        scores.topic_id,
        scores.value,
        rough_means.rough_mean,
        scores.value - rough_means.rough_mean as difference,
        (scores.value - ((scores.value - rough_means.rough_mean) - ((scores.value - rough_means.rough_mean) - scores.value)))
            + (-rough_means.rough_mean - ((scores.value - rough_means.rough_mean) - scores.value)) as difference_error
    from scores
    inner join rough_means on scores.run_id = rough_means.run_id and scores.measure = rough_means.measure
)

select
    run_id,
    measure,
    sum(value order by topic_id) as value,
    count(*) as topics
from scores
where aggregate = 'sum'
group by run_id, measure

union all

select
    run_id,
    measure,
    exp(sum(ln(greatest(value, 1e-5)) order by topic_id) / count(*)) as value,
    count(*) as topics
from scores
where aggregate = 'gmean'
group by run_id, measure

union all

select
    run_id,
    measure,
    sum(value order by topic_id) / count(*) as value,
    count(*) as topics
from scores
where aggregate not in ('sum', 'gmean') and $in_topic_order
group by run_id, measure

union all

select
    run_id,
    measure,
    rough_mean + (fsum(difference order by topic_id) + fsum(difference_error order by topic_id)) / count(value) as value,
    count(*) as topics
from differences
group by run_id, measure, rough_mean
