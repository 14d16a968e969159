-- reads: leaderboard_by_set
-- produces: report_means (run_id, measure, value, position, ranked_runs, higher_is_better, topics,
--           evaluation_id, median, best)
-- grain: run_id, measure
-- params: $campaign_id, $judgment_set, $measures
-- report_means: every run's mean of each measure of a campaign under a judgment set, as
-- run_means_by_set stores it, with its rank among the campaign's runs as the leaderboard ranks
-- them (position of ranked_runs: 1 = best) and the campaign's median and best mean of the
-- measure (`pyeval report`, docs/reports.md). median: the median over the campaign's runs
-- (the mean of the two middle values when their number is even); best: the highest value, or
-- the lowest for a measure whose higher_is_better is false, and none for a measure without a
-- direction (a count such as NumRet). NaN means (undefined) take no part in either.
-- $measures: the measures wanted, or NULL for every stored one.
select
    run_id,
    measure,
    value,
    position,
    ranked_runs,
    higher_is_better,
    topics,
    evaluation_id,
    median(value) filter (where not isnan(value)) over by_measure as median,
    case
        when higher_is_better then max(value) filter (where not isnan(value)) over by_measure
        when not higher_is_better then min(value) filter (where not isnan(value)) over by_measure
    end as best
from leaderboard_by_set
where
    campaign_id = $campaign_id
    and judgment_set = $judgment_set
    and ($measures is null or list_contains($measures, measure))
window by_measure as (partition by measure)
order by measure, run_id
