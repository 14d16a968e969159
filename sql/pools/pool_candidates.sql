-- reads: pool_runs, pool_strata, ranked_entries
-- produces: pool_candidates (topic_id, doc_id, best_rank, first_position, first_run, runs, teams,
--           stratum)
-- grain: topic_id, doc_id
-- params: $campaign_id, $pool_name, $ordering
-- pool_candidates: every document a pooled run of pool $pool_name retrieved at rank <= the run's
-- depth under ordering $ordering (default 'trec': score desc, docno desc), once per topic, with its
-- best rank, the pooling-order position of the first run that reached it at that rank (make-pools.pl
-- reads the runs round-robin, rank by rank, in the order of its run list), the runs and teams
-- (a run without a team is a group of its own, named by the run) that contributed it (gathered
-- as integer indexes, by name, and named at the end: cheaper than lists of names), and the
-- first rank stratum (pool_strata, in the order given) that covers its best rank (found once per
-- best rank that occurs, not per document, and never per rank of the depth: a depth of 2^31 costs
-- what the runs hold); documents no stratum covers are not candidates. docs/pools.md section 1.
with pooled_runs as (
    select
        run_id,
        depth,
        run_position,
        coalesce(team, run_id) as team_name,
        row_number() over (order by run_id) as run_index,
        dense_rank() over (order by coalesce(team, run_id)) as team_index
    from pool_runs
    where campaign_id = $campaign_id and pool_name = $pool_name
),

names as (
    select
        list(run_id order by run_index) as run_names,
        list(distinct team_name order by team_name) as team_names
    from pooled_runs
),

pooled_entries as (
    select
        ranked_entries.topic_id,
        ranked_entries.doc_id,
        ranked_entries.rank,
        pooled_runs.run_id,
        pooled_runs.run_position,
        pooled_runs.run_index,
        pooled_runs.team_index
    from ranked_entries
    inner join pooled_runs on ranked_entries.run_id = pooled_runs.run_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and ranked_entries.rank <= pooled_runs.depth
),

document_indexes as (
    select
        topic_id,
        doc_id,
        min(rank) as best_rank,
        min(rank * 1000000 + run_position) % 1000000 as first_position,
        arg_min(run_id, rank * 1000000 + run_position) as first_run,
        list_sort(list(run_index)) as run_indexes,
        list_sort(list_distinct(list(team_index))) as team_indexes
    from pooled_entries
    group by topic_id, doc_id
),

documents as (
    select
        document_indexes.topic_id,
        document_indexes.doc_id,
        document_indexes.best_rank,
        document_indexes.first_position,
        document_indexes.first_run,
        list_transform(document_indexes.run_indexes, lambda i: names.run_names[i]) as runs,
        list_transform(document_indexes.team_indexes, lambda i: names.team_names[i]) as teams
    from document_indexes
    cross join names
),

rank_strata as (
    select
        ranks.rank,
        min(pool_strata.stratum) as stratum
    from (select distinct best_rank as rank from document_indexes) as ranks
    inner join pool_strata on ranks.rank between pool_strata.rank_from and pool_strata.rank_to
    group by ranks.rank
)

select
    documents.topic_id,
    documents.doc_id,
    documents.best_rank,
    documents.first_position,
    documents.first_run,
    documents.runs,
    documents.teams,
    rank_strata.stratum
from documents
inner join rank_strata on documents.best_rank = rank_strata.rank
