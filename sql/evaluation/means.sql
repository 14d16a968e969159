-- reads: evaluation_scores, requested_aggregates
-- produces: means (run_id, measure, value, topics)
-- grain: run_id, measure
-- params: $in_topic_order
-- means: one row per (run_id, measure): the per-topic values combined over topics.
-- Reads: evaluation_scores(run_id, topic_id, measure, value),
--        requested_aggregates(measure, aggregate), one row per measure (means_select).
-- aggregate: 'mean' (arithmetic), 'sum' (counts, trec_eval num_*), 'gmean' (geometric mean
-- with values floored at 1e-5: trec_eval gm_map and gm_bpref). Sums run in topic order, so
-- the last bit of a mean does not depend on DuckDB's threads. A mean is the exact mean of the
-- values rounded once, as Python's statistics.mean gives it (and nuggetizer's global metrics,
-- which use it; on DuckDB 2, whose fsum keeps sums that cancel, such as 1, 1e16, -1e16, which
-- DuckDB 1.x adds to 0): favg's compensated sum over the topics divided by their number first (within
-- an ulp), then corrected by the mean of the values' exact distances from it (each distance the
-- two doubles of a TwoSum; both sums compensated, as the distances cancel), which is small
-- enough to add without losing a bit. It gives 0.27 for fifty P@10 values summing to 13.5 where
-- adding them one by one drifts to 0.2699999999999999; $in_topic_order: the plain sum in topic
-- order instead, trec_eval's, which its drop-in prints byte for byte. A missing value (NULL)
-- adds nothing to a sum; it is left out of the exact mean's divisor, counts in the in-order
-- mean's (trec_eval has none), is floored to 1e-5 in a geometric mean (greatest() skips NULL),
-- and counts as a topic.
-- Each (run, measure) sorts its values into a list once, in topic order; every aggregate is then
-- computed over that list (list_aggregate runs an aggregate over a list's elements in their
-- order, as the aggregate with `order by topic_id` does, so the values are the same bit for bit;
-- one sort per group instead of one per ordered aggregate). Each measure's aggregate is joined to
-- the groups, not to every value.
with value_lists as (
    select
        run_id,
        measure,
        list(value order by topic_id) as topic_values
    from evaluation_scores
    group by run_id, measure
),

aggregated_lists as (
    select
        value_lists.run_id,
        value_lists.measure,
        requested_aggregates.aggregate,
        value_lists.topic_values
    from value_lists
    inner join requested_aggregates on value_lists.measure = requested_aggregates.measure
),

-- with the mean, first within an ulp or two: favg's compensated (Kahan) sum over the topics
lists_and_rough_means as (
    select
        run_id,
        measure,
        aggregate,
        topic_values,
        case
            when aggregate not in ('sum', 'gmean') and not $in_topic_order
                then list_aggregate(topic_values, 'favg')
        end as rough_mean
    from aggregated_lists
)

select
    run_id,
    measure,
    case
        when aggregate = 'sum' then list_aggregate(topic_values, 'sum')
        when aggregate = 'gmean'
            then exp(list_aggregate(list_transform(topic_values, lambda value: ln(greatest(value, 1e-5))), 'sum')
                     / len(topic_values))
        when $in_topic_order then list_aggregate(topic_values, 'sum') / len(topic_values)
        -- corrected by the mean of each value's distance from it without rounding, as two
        -- doubles: the rounded difference and its error (Knuth's TwoSum of value and -rough_mean)
        else rough_mean + (
            list_aggregate(list_transform(topic_values, lambda value: value - rough_mean), 'fsum')
            + list_aggregate(list_transform(topic_values, lambda value:
                (value - ((value - rough_mean) - ((value - rough_mean) - value)))
                + (-rough_mean - ((value - rough_mean) - value))), 'fsum')
        ) / list_aggregate(topic_values, 'count')
    end as value,
    len(topic_values) as topics
from lists_and_rough_means
