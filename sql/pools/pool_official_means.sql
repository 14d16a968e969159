-- reads: evaluation_means, evaluations, stale_results
-- produces: pool_official_means (run_id, measure, value, evaluation_id)
-- grain: run_id, measure
-- params: $campaign_id, $judgment_set, $ordering, $runs, $measures
-- pool_official_means: the values a leave-out (pyeval/pools/leave_out.py) compares with, read
-- from what the warehouse already holds instead of evaluating again: for each run of $runs and
-- measure of $measures, its mean under judgment set $judgment_set in the latest stored
-- evaluation that is still current (no row of stale_results: neither the run, the set's qrels
-- nor a gain profile it names changed since) and was made as the leave-out evaluates: the
-- measure's lists ranked under $ordering, no depth cut, unjudged documents kept, the topics of
-- the qrels. A (run, measure) without such a value has no row; the caller evaluates those runs.
-- docs/pools.md section 4.
with matching as (
    select
        evaluation_means.run_id,
        evaluation_means.measure,
        evaluation_means.value,
        evaluation_means.evaluation_id,
        row_number() over (
            partition by evaluation_means.run_id, evaluation_means.measure
            order by evaluation_means.evaluation_id desc
        ) as recency
    from evaluation_means
    inner join evaluations on evaluation_means.evaluation_id = evaluations.evaluation_id
    left join stale_results
        on evaluation_means.evaluation_id = stale_results.evaluation_id
        and evaluation_means.run_id = stale_results.run_id
        and evaluation_means.measure = stale_results.measure
    where
        evaluation_means.campaign_id = $campaign_id
        and evaluation_means.judgment_set = $judgment_set
        and list_contains($runs, evaluation_means.run_id)
        and list_contains($measures, evaluation_means.measure)
        and stale_results.evaluation_id is null
        and (evaluations.settings::json ->> 'max_depth') is null
        and (evaluations.settings::json ->> 'judged_only') = 'false'
        and (evaluations.settings::json ->> 'topics') = 'qrels'
        and coalesce(
            list_contains(
                from_json(evaluations.settings::json -> 'orderings' -> $ordering, '["VARCHAR"]'),
                evaluation_means.measure
            ),
            (evaluations.settings::json -> 'orderings') is null and evaluations.ordering = $ordering
        )
)

select run_id, measure, value, evaluation_id
from matching
where recency = 1
