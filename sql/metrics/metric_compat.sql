-- reads: evaluation_levels, evaluation_pairs, evaluation_ranks, evaluation_relevant_documents,
--        requested_measures
-- produces: metric_compat (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_compat: Compat(p, normalize) per (run_id, topic_id, measure): the rank-biased overlap
-- of the ranking with an ideal ranking of the relevant documents.
-- Reads: evaluation_pairs, evaluation_ranks, evaluation_levels, evaluation_relevant_documents,
--        requested_measures(measure, kind, p, normalize).
-- Reference: Clarke, Vtyurina & Smucker, "Assessing top-k preferences", TOIS 39(3) 2021
-- (compatibility); ir_measures compat_provider.py (the definition followed here, value for value).
-- Notation: L list length, R relevant documents of the topic (level > 0), D = max(L, R); the
-- ideal ranking holds the R relevant documents by level descending, then the run's score
-- descending (an unretrieved document counts as score 0), ties by docno ascending (ir_measures
-- keeps qrels order there); it differs only for two relevant documents of one level and one score.
-- A retrieved relevant document of score exactly 0 ties with the unretrieved ones of its level and
-- goes among them in docno order; one of negative score goes after all of them.
--   RBO = sum over depths i <= D of p^(i-1) |run top i  intersect  ideal top i| / i
--   Compat = RBO / (the same sum of the ideal ranking with itself)    (normalize = true;
--            0 when R = 0)
--   Compat = RBO / sum over i <= D of p^(i-1)                          (normalize = false)
-- A relevant retrieved document d at run rank r(d) and ideal rank s(d) is in both top-i lists
-- for every i >= m(d) = max(r(d), s(d)), so RBO = sum over d of W(D) - W(m(d) - 1), with
-- W(n) = sum over i <= n of p^(i-1)/i; the ideal sum is G(R) + R (W(D) - W(R)), G(n) =
-- sum over i <= n of p^(i-1).
with depths as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        evaluation_pairs.num_ret,
        coalesce(relevant.num_rel, 0)::bigint as num_rel,
        greatest(evaluation_pairs.num_ret, coalesce(relevant.num_rel, 0))::bigint as depth
    from evaluation_pairs
    left join (
        select topic_id, sum(judgments) as num_rel
        from evaluation_levels
        where level > 0
        group by topic_id
    ) as relevant on evaluation_pairs.topic_id = relevant.topic_id
),

-- W(n) and G(n) for n = 0 .. the deepest D, one series per p (W(0) = G(0) = 0)
steps as (
    select
        persistences.p,
        unnest(range(0, deepest.depth + 1)) as n
    from (select distinct p from requested_measures) as persistences
    cross join (select coalesce(max(depth), 0)::bigint as depth from depths) as deepest
),

weights as (
    select
        p,
        n,
        sum(case when n = 0 then 0.0 else pow(p, n - 1) / n end) over running as w,
        sum(case when n = 0 then 0.0 else pow(p, n - 1) end) over running as g
    from steps
    window running as (partition by p order by n rows between unbounded preceding and current row)
),

-- relevant documents per (topic, level) and how many of them each list retrieved
topic_levels_relevant as (
    select topic_id, level, judgments
    from evaluation_levels
    where level > 0
),

retrieved_relevant as (
    select
        evaluation_ranks.run_id,
        evaluation_ranks.topic_id,
        evaluation_ranks.rank,
        evaluation_ranks.doc_id,
        evaluation_ranks.score,
        evaluation_ranks.level,
        row_number() over (
            partition by evaluation_ranks.run_id, evaluation_ranks.topic_id, evaluation_ranks.level
            order by evaluation_ranks.score desc, evaluation_ranks.doc_id asc
        ) - 1 as level_retrieved_before,
        count(*) over (
            partition by evaluation_ranks.run_id, evaluation_ranks.topic_id, evaluation_ranks.level
        ) as level_retrieved
    from evaluation_ranks
    where evaluation_ranks.level > 0
),

-- for a retrieved relevant document of score 0: the unretrieved relevant documents of its level
-- with a smaller docno (score 0 too, so ahead of it in the ideal ranking)
unretrieved_before as (
    select
        zero.run_id,
        zero.topic_id,
        zero.rank,
        count(*) as documents
    from retrieved_relevant as zero
    inner join evaluation_relevant_documents as relevant
        on
            relevant.topic_id = zero.topic_id
            and relevant.level = zero.level
            and relevant.doc_id < zero.doc_id
    where
        zero.score = 0
        and not exists (
            select 1
            from evaluation_ranks as retrieved
            where
                retrieved.run_id = zero.run_id
                and retrieved.topic_id = zero.topic_id
                and retrieved.doc_id = relevant.doc_id
        )
    group by zero.run_id, zero.topic_id, zero.rank
),

ideal_ranked as (
    select
        retrieved_relevant.run_id,
        retrieved_relevant.topic_id,
        greatest(
            retrieved_relevant.rank,
            1
            + coalesce((
                select sum(higher.judgments)
                from topic_levels_relevant as higher
                where higher.topic_id = retrieved_relevant.topic_id and higher.level > retrieved_relevant.level
            ), 0)
            + retrieved_relevant.level_retrieved_before
            + case
                when retrieved_relevant.score < 0
                    then same.judgments - retrieved_relevant.level_retrieved
                when retrieved_relevant.score = 0
                    then coalesce(unretrieved_before.documents, 0)
                else 0
            end
        ) as both_from
    from retrieved_relevant
    inner join topic_levels_relevant as same
        on same.topic_id = retrieved_relevant.topic_id and same.level = retrieved_relevant.level
    left join unretrieved_before
        on
            unretrieved_before.run_id = retrieved_relevant.run_id
            and unretrieved_before.topic_id = retrieved_relevant.topic_id
            and unretrieved_before.rank = retrieved_relevant.rank
),

shared_prefixes as (
    select
        ideal_ranked.run_id,
        ideal_ranked.topic_id,
        requested_measures.measure,
        sum(at_depth.w - before.w) as rbo
    from ideal_ranked
    inner join depths
        on ideal_ranked.run_id = depths.run_id and ideal_ranked.topic_id = depths.topic_id
    cross join requested_measures
    inner join weights as at_depth on at_depth.p = requested_measures.p and at_depth.n = depths.depth
    inner join weights as before
        on before.p = requested_measures.p and before.n = ideal_ranked.both_from - 1
    group by ideal_ranked.run_id, ideal_ranked.topic_id, requested_measures.measure
)

select
    depths.run_id,
    depths.topic_id,
    requested_measures.measure,
    case
        when depths.num_rel = 0 or depths.depth = 0 then 0
        when requested_measures.normalize
            then coalesce(shared_prefixes.rbo, 0)
            / (at_relevant.g + depths.num_rel * (at_depth.w - at_relevant.w))
        else coalesce(shared_prefixes.rbo, 0) / at_depth.g
    end::double as value
from depths
cross join requested_measures
inner join weights as at_depth on at_depth.p = requested_measures.p and at_depth.n = depths.depth
inner join weights as at_relevant on at_relevant.p = requested_measures.p and at_relevant.n = depths.num_rel
left join shared_prefixes
    on
        depths.run_id = shared_prefixes.run_id
        and depths.topic_id = shared_prefixes.topic_id
        and requested_measures.measure = shared_prefixes.measure
