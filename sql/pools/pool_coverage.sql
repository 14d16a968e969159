-- reads: pool_runs, pools, qrels_by_set, ranked_entries, runs
-- produces: pool_coverage_rows (run_id, topic_id, k, retrieved, judged, relevant,
--           unjudged_fraction, unique_to_team)
-- grain: run_id, topic_id, k
-- params: $campaign_id, $pool_name, $judgment_set, $ordering, $runs
-- pool_coverage: for each run of the campaign ($runs, or every run when empty) and topic it
-- retrieved, at each cut-off k of 5, 10, 20, 100 and the pool's depth: the documents at rank <= k
-- under the pool's ordering, how many of them judgment set $judgment_set judges (trectools'
-- TrecRun.check_qrel_coverage) and finds relevant (level > 0 for any intent), the fraction
-- unjudged (1 - judged / retrieved), and how many no pooled run of another team retrieved at
-- rank <= k (a run without a team is a group of its own): the best rank of another team is the
-- document's best team rank, or its second-best when the run's own team holds the best (two
-- rows per document instead of a join with every team). docs/pools.md section 3.
with cutoffs as (
    select k from (values (5), (10), (20), (100)) as fixed (k)
    union
    select depth as k from pools where campaign_id = $campaign_id and pool_name = $pool_name
),

team_names as (
    select
        team_name,
        row_number() over (order by team_name) as team_index
    from (
        select coalesce(team, run_id) as team_name from runs where campaign_id = $campaign_id
        union
        select coalesce(team, run_id) as team_name
        from pool_runs
        where campaign_id = $campaign_id and pool_name = $pool_name
    ) as named
),

run_teams as (
    select
        runs.run_id,
        own.team_index,
        pooled.team_index as pooled_team_index
    from runs
    inner join team_names as own on coalesce(runs.team, runs.run_id) = own.team_name
    left join pool_runs on runs.run_id = pool_runs.run_id
        and pool_runs.campaign_id = $campaign_id and pool_runs.pool_name = $pool_name
    left join team_names as pooled on coalesce(pool_runs.team, pool_runs.run_id) = pooled.team_name
    where runs.campaign_id = $campaign_id
),

entries as materialized (
    select
        ranked_entries.run_id,
        ranked_entries.topic_id,
        ranked_entries.doc_id,
        ranked_entries.rank,
        run_teams.team_index,
        run_teams.pooled_team_index,
        len($runs) = 0 or list_contains($runs, ranked_entries.run_id) as is_covered
    from ranked_entries
    inner join run_teams on ranked_entries.run_id = run_teams.run_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and ranked_entries.rank <= (select max(k) from cutoffs)
        and (len($runs) = 0 or list_contains($runs, ranked_entries.run_id) or run_teams.pooled_team_index is not null)
),

best_teams as (
    select
        topic_id,
        doc_id,
        min(rank * 1000000 + pooled_team_index) as first_key,
        list_sort(list(rank * 1000000 + pooled_team_index)) as keys
    from entries
    where pooled_team_index is not null
    group by topic_id, doc_id
),

judged as (
    select topic_id, doc_id, max(level) as level
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
    group by topic_id, doc_id
),

entry_facts as materialized (
    select
        entries.run_id,
        entries.topic_id,
        entries.rank,
        judged.doc_id is not null as is_judged,
        coalesce(judged.level > 0, false) as is_relevant,
        case
            when best_teams.first_key % 1000000 = entries.team_index
                then list_filter(best_teams.keys, lambda key: key % 1000000 <> entries.team_index)[1] // 1000000
            else best_teams.first_key // 1000000
        end as other_team_rank
    from entries
    left join judged on entries.topic_id = judged.topic_id and entries.doc_id = judged.doc_id
    left join best_teams on entries.topic_id = best_teams.topic_id and entries.doc_id = best_teams.doc_id
    where entries.is_covered
)

select
    entry_facts.run_id,
    entry_facts.topic_id,
    cutoffs.k,
    count(*) as retrieved,
    count(*) filter (where entry_facts.is_judged) as judged,
    count(*) filter (where entry_facts.is_relevant) as relevant,
    1.0 - count(*) filter (where entry_facts.is_judged) / count(*) as unjudged_fraction,
    count(*) filter (where coalesce(entry_facts.other_team_rank, cutoffs.k + 1) > cutoffs.k) as unique_to_team
from entry_facts
inner join cutoffs on entry_facts.rank <= cutoffs.k
group by entry_facts.run_id, entry_facts.topic_id, cutoffs.k
