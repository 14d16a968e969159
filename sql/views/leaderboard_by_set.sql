-- reads: pairwise_tests, pool_runs, risk_results, run_means_by_set, run_tags
-- produces: leaderboard_by_set (campaign_id, run_id, measure, value, position, ranked_runs,
--           higher_is_better, system, team, run_date, tags, baseline_run_id, baseline_value,
--           difference, test, p_adjusted, versus_baseline, topics, evaluation_id, evaluated_at,
--           risk_baseline, risk_alpha, urisk, trisk, trisk_p, zrisk, georisk, judgment_set, pooled)
-- grain: campaign_id, judgment_set, run_id, measure
-- params: none
-- leaderboard_by_set: one row per (campaign_id, judgment_set, run_id, measure) of run_means_by_set: the run's value, its
-- rank among the campaign's runs (1 = best: highest value, or lowest for a measure whose
-- measures.higher_is_better is false), its tags and metadata, and how it compares with the
-- campaign's baseline run (the run tagged 'baseline'; the first by name when several are):
-- the baseline's value, the difference, and the latest stored significance test of the pair
-- on that measure (`pyeval significance` / `compare`): its test, adjusted p and verdict. The
-- verdict is 'stale' when that test read an older evaluation than the run's or the baseline's
-- value shown (re-run `pyeval compare` to test the current values); NULL when no test was stored.
-- The risk columns come from the latest stored risk experiment on the measure (`pyeval risk`,
-- risk_results): its headline rows, the first baseline and first alpha the command was given
-- (ZRisk and GeoRisk: every run as baseline, that alpha).
-- Long form: filter on measure (one chart per measure), or pivot in the BI tool.
-- judgment_set: runs are ranked among the runs evaluated under the same judgment set, against
-- the baseline's value and the tests under that set; a campaign evaluated under several sets
-- has one leaderboard per set (filter on judgment_set; the view leaderboard shows each campaign's
-- default set; docs/judgments.md).
-- pooled: whether the run contributed to a pool of the campaign (pyeval pool build; docs/pools.md).
-- Portable SQL (DuckDB and PostgreSQL).
with tag_lists as (
    select campaign_id, run_id, string_agg(tag, ', ' order by tag) as tags
    from run_tags
    group by campaign_id, run_id
),

baselines as (
    select campaign_id, min(run_id) as baseline_run_id
    from run_tags
    where tag = 'baseline'
    group by campaign_id
),

latest_tests as (
    select
        campaign_id,
        judgment_set,
        measure,
        run_a,
        run_b,
        test,
        p_adjusted,
        significant,
        evaluation_id,
        row_number() over (
            partition by campaign_id, judgment_set, measure, run_a, run_b order by test_id desc
        ) as recency
    from pairwise_tests
),

latest_risk as (
    select
        campaign_id,
        judgment_set,
        measure,
        run_id,
        max(case when risk_measure = 'URisk' then baseline end) as risk_baseline,
        max(alpha) as risk_alpha,
        max(case when risk_measure = 'URisk' then value end) as urisk,
        max(case when risk_measure = 'TRisk' then value end) as trisk,
        max(case when risk_measure = 'TRisk' then p_value end) as trisk_p,
        max(case when risk_measure = 'ZRisk' then value end) as zrisk,
        max(case when risk_measure = 'GeoRisk' then value end) as georisk
    from risk_results
    where headline
        and risk_id = (
            select max(r.risk_id) from risk_results as r
            where r.campaign_id = risk_results.campaign_id and r.measure = risk_results.measure
                and r.judgment_set = risk_results.judgment_set
        )
    group by campaign_id, judgment_set, measure, run_id
),

ranked as (
    select
        run_means_by_set.*,
        rank() over (
            partition by run_means_by_set.campaign_id, run_means_by_set.judgment_set, run_means_by_set.measure
            order by case when run_means_by_set.higher_is_better = false then -run_means_by_set.value else run_means_by_set.value end desc nulls last
        ) as position,
        count(*) over (
            partition by run_means_by_set.campaign_id, run_means_by_set.judgment_set, run_means_by_set.measure
        ) as ranked_runs
    from run_means_by_set
)

select
    ranked.campaign_id,
    ranked.run_id,
    ranked.measure,
    ranked.value,
    ranked.position,
    ranked.ranked_runs,
    ranked.higher_is_better,
    ranked.system,
    ranked.team,
    ranked.run_date,
    tag_lists.tags,
    baselines.baseline_run_id,
    baseline.value as baseline_value,
    ranked.value - baseline.value as difference,
    latest_tests.test,
    latest_tests.p_adjusted,
    case
        when latest_tests.significant is null then null
        when latest_tests.evaluation_id < ranked.evaluation_id
            or latest_tests.evaluation_id < baseline.evaluation_id then 'stale'
        when not latest_tests.significant then 'not significant'
        when ranked.higher_is_better is null then 'significantly different'
        when (ranked.value > baseline.value) = ranked.higher_is_better then 'significantly better'
        else 'significantly worse'
    end as versus_baseline,
    ranked.topics,
    ranked.evaluation_id,
    ranked.evaluated_at,
    latest_risk.risk_baseline,
    latest_risk.risk_alpha,
    latest_risk.urisk,
    latest_risk.trisk,
    latest_risk.trisk_p,
    latest_risk.zrisk,
    latest_risk.georisk,
    ranked.judgment_set,
    exists (
        select 1 from pool_runs
        where pool_runs.campaign_id = ranked.campaign_id and pool_runs.run_id = ranked.run_id
    ) as pooled
from ranked
left join tag_lists on ranked.campaign_id = tag_lists.campaign_id and ranked.run_id = tag_lists.run_id
left join baselines on ranked.campaign_id = baselines.campaign_id
left join run_means_by_set as baseline
    on baselines.campaign_id = baseline.campaign_id
    and baselines.baseline_run_id = baseline.run_id
    and ranked.judgment_set = baseline.judgment_set
    and ranked.measure = baseline.measure
left join latest_tests
    on ranked.campaign_id = latest_tests.campaign_id
    and ranked.judgment_set = latest_tests.judgment_set
    and ranked.measure = latest_tests.measure
    and latest_tests.recency = 1
    and (
        (latest_tests.run_a = ranked.run_id and latest_tests.run_b = baselines.baseline_run_id)
        or (latest_tests.run_b = ranked.run_id and latest_tests.run_a = baselines.baseline_run_id)
    )
left join latest_risk
    on ranked.campaign_id = latest_risk.campaign_id
    and ranked.judgment_set = latest_risk.judgment_set
    and ranked.measure = latest_risk.measure
    and ranked.run_id = latest_risk.run_id
