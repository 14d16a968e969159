-- reads: evaluation_pairs, evaluation_ranks, requested_measures
-- produces: metric_unjudged (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_unjudged: measures of the documents a run retrieved without a judgment, per
-- (run_id, topic_id, measure): Unjudged@k, Judged@k, RBPResid(p).
-- Reads: evaluation_pairs, evaluation_ranks, requested_measures(measure, kind, cutoff, p).
-- References: trec_eval 10.0 m_unjudged.c and m_rbp_resid.c (Moffat & Zobel, TOIS 2008);
-- ir_measures Judged.
-- Notation (docs/adhoc-measures.md section 0): L list length. trec_eval labels each retrieved
-- document with its level (>= 0, judged), -2 (qrels line with a negative level: pooled but
-- unjudged) or -1 (no qrels line: not in the pool); evaluation_ranks holds the first two, so
-- a rank 1..L missing from it is an unpooled document.
--   Unjudged@k  (labels -1 or -2 in the top min(k, L)) / k; the denominator is k even for
--               short lists (trec_eval 10.0 m_unjudged.c, measure unj).
--   Judged@k    (documents with a qrels line, whatever its level, in the top min(k, L))
--               / min(k, L), k = L without a cutoff (Judged); 0 when L = 0 (ir_measures judged_provider.py, adapted from
--               OpenNIR: `did in qrels`, so a negative qrels level counts as judged).
--   RBPResid    if some retrieved document is unjudged (label < 0, unpooled included):
--               p^L + (1 - p) * sum over unjudged ranks r of p^(r-1), else 0
--               (trec_eval 10.0 m_rbp_resid.c, default p = 0.9, `-m rbp_resid.p=0.95` sets it; Moffat & Zobel, TOIS 2008).
-- RBPResid is computed as m_rbp_resid.c's loop does, so that its value is the same double:
-- p^(r-1) by repeated multiplication (repeated_powers), added in rank order over the unjudged
-- ranks (a left fold), then p^L + (1 - p) * sum. A closed form over the judged ranks is exact
-- in theory but differs in the last bit, which turned a printed 4th decimal.
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
            and evaluation_ranks.rank <= coalesce(requested_measures.cutoff, evaluation_ranks.rank)
    group by evaluation_ranks.run_id, evaluation_ranks.topic_id, requested_measures.measure
),

residual_requests as (
    select measure, p
    from requested_measures
    where kind = 'RBPResid'
),

-- p^0, p^1, ... as m_rbp_resid.c multiplies them, one list per p
residual_powers as (
    select
        residual_ps.p,
        repeated_powers(residual_ps.p, longest.num_ret) as powers
    from (select distinct p from residual_requests) as residual_ps
    cross join (select coalesce(max(num_ret), 0) as num_ret from evaluation_pairs) as longest
),

-- the judged ranks of each list, ascending: the unjudged ranks are the gaps between them
judged_lists as (
    select
        run_id,
        topic_id,
        list(rank order by rank) as judged_ranks
    from evaluation_ranks
    where level >= 0 and exists (select 1 from residual_requests)
    group by run_id, topic_id
),

-- each gap between consecutive judged ranks a < b (0 and L + 1 at the ends) holds ranks
-- a+1 .. b-1: gap_starts[i] and gap_ends[i] are a and b of the i-th gap
list_gaps as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        evaluation_pairs.num_ret,
        list_prepend(0, coalesce(judged_lists.judged_ranks, [])) as gap_starts,
        list_append(coalesce(judged_lists.judged_ranks, []), evaluation_pairs.num_ret + 1) as gap_ends
    from evaluation_pairs
    left join judged_lists
        on
            evaluation_pairs.run_id = judged_lists.run_id
            and evaluation_pairs.topic_id = judged_lists.topic_id
    where exists (select 1 from residual_requests)
),

residual_parts as (
    select
        list_gaps.run_id,
        list_gaps.topic_id,
        residual_requests.measure,
        residual_powers.powers[list_gaps.num_ret + 1] as power_at_length,
        -- p^(r-1) of the unjudged ranks r, in rank order
        flatten(
            list_transform(
                list_gaps.gap_ends,
                lambda gap_end, i: residual_powers.powers[list_gaps.gap_starts[i] + 1:gap_end - 1]
            )
        ) as unjudged_powers
    from list_gaps
    cross join residual_requests
    inner join residual_powers on residual_requests.p = residual_powers.p
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
        least(coalesce(requested_measures.cutoff, evaluation_pairs.num_ret), evaluation_pairs.num_ret) as shown,
        coalesce(cutoff_counts.pooled_within_cutoff, 0) as pooled_within_cutoff,
        coalesce(cutoff_counts.judged_within_cutoff, 0) as judged_within_cutoff,
        residual_parts.power_at_length,
        len(residual_parts.unjudged_powers) as unjudged_retrieved,
        -- sum += cur_p over the unjudged ranks, in rank order (a left fold from 0.0, as in C)
        list_reduce(
            residual_parts.unjudged_powers, lambda total, term: total + term, 0.0::double
        ) as unjudged_weight
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
                when unjudged_retrieved > 0 then power_at_length + (1 - p) * unjudged_weight
                else 0
            end
        else error('metric_unjudged: no formula for measure kind ' || kind)
    end::double as value
from measure_inputs
