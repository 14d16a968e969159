-- reads: pool_candidates, pool_selected, pool_strata
-- produces: pool_stratum_drawn (topic_id, doc_id, best_rank, first_position, first_run, runs, teams,
--           stratum)
-- grain: topic_id, doc_id
-- params: $stratum, $budget, $seed
-- pool_sample_stratum: the candidates of rank stratum $stratum that make-pools.pl's sampling keeps
-- (pyeval/pools/build.py runs it once per stratum, in order, adding the result to pool_selected).
-- Per topic, the stratum's rate is its own (pool_strata.rate) or, when it has none, the budget
-- left after the earlier strata divided by the stratum's candidates (make-pools.pl: $budget /
-- ndocs); a document is drawn when its uniform number is <= the rate. The uniform number is
-- the first 52 bits of md5(seed TAB topic TAB docno) over 2^52: seeded, and the same on every
-- machine and version. With a budget ($budget, per topic), the drawn documents are taken in
-- pooling order (best rank, then the first run's pooling position) while budget is left.
-- docs/pools.md section 1.
with taken as (
    select topic_id, count(*) as documents
    from pool_selected
    group by topic_id
),

members as (
    select
        pool_candidates.*,
        count(*) over (partition by pool_candidates.topic_id) as stratum_documents,
        cast($budget as bigint) - coalesce(taken.documents, 0) as budget_left,
        cast(('0x' || substr(md5(cast($seed as varchar) || chr(9) || pool_candidates.topic_id || chr(9)
            || pool_candidates.doc_id), 1, 13)) as bigint) / 4503599627370496.0 as draw
    from pool_candidates
    left join taken on pool_candidates.topic_id = taken.topic_id
    where pool_candidates.stratum = $stratum
),

drawn as (
    select
        members.*,
        row_number() over (
            partition by members.topic_id order by members.best_rank, members.first_position, members.doc_id
        ) as drawn_position
    from members
    inner join pool_strata on pool_strata.stratum = members.stratum
    where
        coalesce(pool_strata.rate, members.budget_left / members.stratum_documents) >= 1
        or members.draw <= coalesce(pool_strata.rate, members.budget_left / members.stratum_documents)
)

select
    topic_id,
    doc_id,
    best_rank,
    first_position,
    first_run,
    runs,
    teams,
    stratum
from drawn
where budget_left is null or drawn_position <= budget_left
