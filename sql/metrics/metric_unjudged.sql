-- metric_unjudged: measures of the documents a run retrieved without a judgment, per
-- (run_id, topic_id, measure): Unjudged@k, Judged@k, RBPResid(p).
-- Reads: evaluation_pairs, evaluation_ranks, requested_measures(measure, kind, cutoff, p).
-- References: trec_eval 10.0 m_unjudged.c and m_rbp_resid.c (Moffat & Zobel, TOIS 2008);
-- ir_measures Judged.
-- Notation (metrics-adhoc.md section 0): L list length. trec_eval labels each retrieved
-- document with its level (>= 0, judged), -2 (qrels line with a negative level: pooled but
-- unjudged) or -1 (no qrels line: not in the pool); evaluation_ranks holds the first two, so
-- a rank 1..L missing from it is an unpooled document.
--   Unjudged@k  (labels -1 or -2 in the top min(k, L)) / k; the denominator is k even for
--               short lists (trec_eval 10.0 m_unjudged.c, measure unj).
--   Judged@k    (documents with a qrels line, whatever its level, in the top min(k, L))
--               / min(k, L); 0 when L = 0 (ir_measures judged_provider.py, adapted from
--               OpenNIR: `did in qrels`, so a negative qrels level counts as judged).
--   RBPResid    if some retrieved document is unjudged (label < 0, unpooled included):
--               p^L + (1 - p) * sum over unjudged ranks r of p^(r-1), else 0
--               (trec_eval 10.0 m_rbp_resid.c, default p = 0.9, `-m rbp_resid.p=0.95` sets it; Moffat & Zobel, TOIS 2008).
-- RBPResid uses a closed form instead of walking ranks 1..L: with j_1 < ... < j_m the judged
-- ranks (j_0 = 0), the unjudged ranks are the gaps j_(i-1)+1 .. j_i - 1 and j_m+1 .. L, and a
-- geometric series gives (1 - p) * sum_{r=a..b} p^(r-1) = p^(a-1) - p^b; the p^L terms cancel:
--   RBPResid = p^(j_m) + sum_i (p^(j_(i-1)) - p^(j_i - 1)).
-- Every term is >= 0, so no cancellation (the equal 1 - (1 - p) * sum_i p^(j_i - 1) loses
-- all precision when the residual is small); sums run in rank order, as trec_eval's loop does.
-- With trec_eval -c a topic the run lacks is scored on a one-document bogus ranking and then
-- unj and rbp_resid are reset to 0 (trec_eval.c); here such a topic has L = 0 and every
-- measure of this family is 0 by the formulas above.
with cutoff_counts as (
    select
        evaluation_ranks.run_id,
        evaluation_ranks.topic_id,
        requested_measures.measure,
        count(*) as pooled_within_cutoff,
        count(*) filter (where evaluation_ranks.level >= 0) as judged_within_cutoff
    from evaluation_ranks
    inner join requested_measures
        on
            requested_measures.kind in ('Unjudged', 'Judged')
            and evaluation_ranks.rank <= requested_measures.cutoff
    group by evaluation_ranks.run_id, evaluation_ranks.topic_id, requested_measures.measure
),

judged_ranks as (
    select
        run_id,
        topic_id,
        rank,
        lag(rank, 1, 0) over (partition by run_id, topic_id order by rank) as previous_judged_rank
    from evaluation_ranks
    where
        level >= 0
        and exists (select 1 from requested_measures where kind = 'RBPResid')
),

residual_parts as (
    select
        judged_ranks.run_id,
        judged_ranks.topic_id,
        requested_measures.measure,
        count(*) as judged_retrieved,
        max(judged_ranks.rank) as last_judged_rank,
        -- (1 - p) * sum of p^(r-1) over the unjudged ranks before each judged document
        sum(
            pow(requested_measures.p, judged_ranks.previous_judged_rank)
            - pow(requested_measures.p, judged_ranks.rank - 1)
            order by judged_ranks.rank
        ) as gap_weight
    from judged_ranks
    inner join requested_measures on requested_measures.kind = 'RBPResid'
    group by judged_ranks.run_id, judged_ranks.topic_id, requested_measures.measure
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested_measures.measure,
        requested_measures.kind,
        requested_measures.cutoff,
        requested_measures.p,
        evaluation_pairs.num_ret,
        least(requested_measures.cutoff, evaluation_pairs.num_ret) as shown,
        coalesce(cutoff_counts.pooled_within_cutoff, 0) as pooled_within_cutoff,
        coalesce(cutoff_counts.judged_within_cutoff, 0) as judged_within_cutoff,
        coalesce(residual_parts.judged_retrieved, 0) as judged_retrieved,
        coalesce(residual_parts.last_judged_rank, 0) as last_judged_rank,
        coalesce(residual_parts.gap_weight, 0) as gap_weight
    from evaluation_pairs
    cross join requested_measures
    left join cutoff_counts
        on
            evaluation_pairs.run_id = cutoff_counts.run_id
            and evaluation_pairs.topic_id = cutoff_counts.topic_id
            and requested_measures.measure = cutoff_counts.measure
    left join residual_parts
        on
            evaluation_pairs.run_id = residual_parts.run_id
            and evaluation_pairs.topic_id = residual_parts.topic_id
            and requested_measures.measure = residual_parts.measure
)

select
    run_id,
    topic_id,
    measure,
    case kind
        when 'Unjudged' then (shown - judged_within_cutoff) / cutoff
        when 'Judged' then case when shown > 0 then pooled_within_cutoff / shown else 0 end
        when 'RBPResid'
            then case
                when num_ret > judged_retrieved then gap_weight + pow(p, last_judged_rank)
                else 0
            end
    end::double as value
from measure_inputs
