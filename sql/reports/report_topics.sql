-- reads: scores_by_set
-- produces: report_topics (run_id, topic_id, value, median, best)
-- grain: run_id, topic_id
-- params: $campaign_id, $judgment_set, $measure
-- report_topics: every run's stored value of one measure on each topic (scores_by_set), with
-- the topic's median and best over the campaign's runs that have a value for it: the
-- per-topic bars of a run's report page (TREC's appendix: run minus median, the best
-- marked; `pyeval report`, docs/reports.md). best: the highest value, or the lowest for a
-- measure whose higher_is_better is false, none for a measure without a direction; NaN values
-- take no part in either.
select
    run_id,
    topic_id,
    value,
    median(value) filter (where not isnan(value)) over by_topic as median,
    case
        when higher_is_better then max(value) filter (where not isnan(value)) over by_topic
        when not higher_is_better then min(value) filter (where not isnan(value)) over by_topic
    end as best
from scores_by_set
where campaign_id = $campaign_id and judgment_set = $judgment_set and measure = $measure
window by_topic as (partition by topic_id)
order by run_id, topic_id
