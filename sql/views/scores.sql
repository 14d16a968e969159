-- reads: campaigns, scores_by_set
-- produces: scores (campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at,
--           judgment_set, aggregate, higher_is_better)
-- grain: campaign_id, run_id, topic_id, measure
-- params: none
-- scores: the public per-topic results, one row per (campaign_id, run_id, topic_id, measure):
-- the current value (the latest evaluation whose inputs still hold; scores_by_set) under each
-- campaign's default judgment set (campaigns.default_judgment_set, 'official' unless changed;
-- docs/judgments.md), so that a query naming no set never mixes two sets' values. Values under
-- the other sets are in scores_by_set.
-- Portable SQL (DuckDB and PostgreSQL).
-- Two branches of the same rule. The campaigns whose default is 'official' (nearly all) keep
-- their rows of that set: every row of set 'official' but those of the few campaigns with another
-- default, an anti join with a list that is usually empty (every stored value's campaign is in
-- campaigns: pyeval deletes none). A whole-archive scan then costs 1.6x the stored rows' instead
-- of 5.8x with a join of every row to its campaign (bench/bench_archive.py, 400 campaigns;
-- docs/benchmarks.md). The other campaigns' rows by the join.
select scores_by_set.*
from scores_by_set
where scores_by_set.judgment_set = 'official'
    and scores_by_set.campaign_id not in (
        select campaigns.campaign_id from campaigns where campaigns.default_judgment_set <> 'official'
    )

union all

select scores_by_set.*
from scores_by_set
inner join campaigns
    on scores_by_set.campaign_id = campaigns.campaign_id
    and scores_by_set.judgment_set = campaigns.default_judgment_set
where campaigns.default_judgment_set <> 'official'
