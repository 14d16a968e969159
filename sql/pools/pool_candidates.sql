-- reads: pool_runs, pool_strata, ranked_entries
-- produces: pool_candidates (topic_id, doc_id, best_rank, first_position, first_run, runs, teams,
--           stratum)
-- grain: topic_id, doc_id
-- params: $campaign_id, $pool_name, $ordering
-- pool_candidates: every document a pooled run of pool $pool_name retrieved at rank <= the run's
-- depth under ordering $ordering (default 'trec': score desc, docno desc), once per topic, with its
-- best rank, the pooling-order position of the first run that reached it at that rank (make-pools.pl
-- reads the runs round-robin, rank by rank, in the order of its run list), the runs and teams
-- (a run without a team is a group of its own, named by the run) that contributed it, and the
-- first rank stratum (pool_strata, in the order given) that covers its best rank; documents no
-- stratum covers are not candidates. docs/pools.md section 1.
with pooled_entries as (
    select
        ranked_entries.topic_id,
        ranked_entries.doc_id,
        ranked_entries.rank,
        pool_runs.run_id,
        pool_runs.run_position,
        coalesce(pool_runs.team, pool_runs.run_id) as team_name
    from ranked_entries
    inner join pool_runs
        on ranked_entries.campaign_id = pool_runs.campaign_id and ranked_entries.run_id = pool_runs.run_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and pool_runs.pool_name = $pool_name
        and ranked_entries.rank <= pool_runs.depth
),

documents as (
    select
        topic_id,
        doc_id,
        min(rank) as best_rank,
        min(rank * 1000000 + run_position) % 1000000 as first_position,
        arg_min(run_id, rank * 1000000 + run_position) as first_run,
        list_sort(list(run_id)) as runs,
        list_sort(list_distinct(list(team_name))) as teams
    from pooled_entries
    group by topic_id, doc_id
)

select
    documents.topic_id,
    documents.doc_id,
    documents.best_rank,
    documents.first_position,
    documents.first_run,
    documents.runs,
    documents.teams,
    min(pool_strata.stratum) as stratum
from documents
inner join pool_strata on documents.best_rank between pool_strata.rank_from and pool_strata.rank_to
group by all
