-- reads: evaluation_pairs, evaluation_ranks, evaluation_topics, requested_measures
-- produces: metric_precision (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_precision: set and cutoff precision/recall measures per (run_id, topic_id, measure):
-- P@k, R@k, RelP@k, Success@k, Hits@k, Accuracy[@k], Rprec, RprecMult(m), SetP, SetR, SetRelP,
-- SetAP, SetF(beta), Utility(p1..p4).
-- Reads: evaluation_pairs, evaluation_ranks, evaluation_topics,
--        requested_measures(measure, kind, rel, cutoff, m, beta, p1, p2, p3, p4, collection_size).
-- Notation (docs/adhoc-measures.md section 0): C(k) relevant in the top k, L list length, R relevant.
-- Reference: trec_eval 10.0 m_P.c, m_recall.c, m_rel_P.c, m_success.c, m_Rprec.c,
-- m_Rprec_mult.c (cutoff (long)(m*R + 0.9)), m_set_P.c, m_set_recall.c, m_set_rel_P.c,
-- m_set_map.c, m_set_F.c (beta not squared), m_utility.c; ranx hits@k (Bassani, ECIR 2022);
-- ir_measures Accuracy (accuracy_provider.py).
--   Hits@k      C(k), a count (ranx hits); Hits: C(L).
--   Accuracy@k  over the top n = min(k, L) (n = L without k), with m relevant documents at ranks
--               r_1 < ... < r_m: the share of (relevant, non-relevant) pairs in the top n where
--               the relevant document is above, 1 - sum_j (r_j - j) / (m (n - m)); 0 when
--               m = 0 (ir_measures reports nothing, and its evaluator fills 0), 1 when n = m
--               (ir_measures divides by zero there).
--   SetP@k      SetP of the list cut at k: C(k')/k', k' = min(k, L) (trec_eval set_P with -M k).
with thresholds as (
    select distinct rel
    from requested_measures
),

relevant_ranks as (
    select
        evaluation_ranks.run_id,
        evaluation_ranks.topic_id,
        thresholds.rel,
        list(evaluation_ranks.rank order by evaluation_ranks.rank) as ranks
    from evaluation_ranks
    inner join thresholds on evaluation_ranks.level >= thresholds.rel
    group by evaluation_ranks.run_id, evaluation_ranks.topic_id, thresholds.rel
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested_measures.*,
        evaluation_pairs.num_ret,
        evaluation_topics.num_rel,
        coalesce(relevant_ranks.ranks, []) as ranks,
        case requested_measures.kind
            when 'Rprec' then evaluation_topics.num_rel
            when 'RprecMult' then floor(requested_measures.m * evaluation_topics.num_rel + 0.9)::bigint
            when 'Accuracy' then least(coalesce(requested_measures.cutoff, evaluation_pairs.num_ret), evaluation_pairs.num_ret)
            when 'Hits' then coalesce(requested_measures.cutoff, evaluation_pairs.num_ret)
            else requested_measures.cutoff
        end as depth
    from evaluation_pairs
    cross join requested_measures
    inner join evaluation_topics
        on
            evaluation_pairs.topic_id = evaluation_topics.topic_id
            and requested_measures.rel = evaluation_topics.rel
    left join relevant_ranks
        on
            evaluation_pairs.run_id = relevant_ranks.run_id
            and evaluation_pairs.topic_id = relevant_ranks.topic_id
            and requested_measures.rel = relevant_ranks.rel
),

counted as (
    select
        *,
        len(ranks) as relevant_retrieved,
        len(list_filter(ranks, lambda r: r <= depth)) as relevant_within_depth,
        coalesce(list_sum(list_filter(ranks, lambda r: r <= depth)), 0) as rank_sum_within_depth
    from measure_inputs
),

set_precision_recall as (
    select
        *,
        case when num_ret > 0 then relevant_retrieved / num_ret else 0 end as set_precision,
        case when num_rel > 0 then relevant_retrieved / num_rel else 0 end as set_recall
    from counted
)

select
    run_id,
    topic_id,
    measure,
    case kind
        when 'P' then relevant_within_depth / depth
        when 'R' then case when num_rel > 0 then relevant_within_depth / num_rel else 0 end
        when 'RelP'
            then case when num_rel > 0 then relevant_within_depth / least(depth, num_rel) else 0 end
        when 'Success' then case when relevant_within_depth > 0 then 1 else 0 end
        when 'Hits' then relevant_within_depth
        when 'Accuracy'
            then case
                when relevant_within_depth = 0 then 0
                when relevant_within_depth = depth then 1
                else 1 - (rank_sum_within_depth - relevant_within_depth * (relevant_within_depth + 1) / 2)
                / (relevant_within_depth * (depth - relevant_within_depth))
            end
        when 'Rprec' then case when num_rel > 0 then relevant_within_depth / num_rel else 0 end
        when 'RprecMult' then case when depth > 0 then relevant_within_depth / depth else 0 end
        when 'SetP'
            then case
                when cutoff is null then set_precision
                when least(depth, num_ret) > 0 then relevant_within_depth / least(depth, num_ret)
                else 0
            end
        when 'SetR' then set_recall
        when 'SetRelP'
            then case
                when least(num_ret, num_rel) > 0 then relevant_retrieved / least(num_ret, num_rel)
                else 0
            end
        when 'SetAP'
            then case
                when num_ret > 0 and num_rel > 0
                    then relevant_retrieved * relevant_retrieved / (num_ret * num_rel)
                else 0
            end
        when 'SetF'
            then case
                when relevant_retrieved > 0
                    then (beta + 1) * set_precision * set_recall / (beta * set_precision + set_recall)
                else 0
            end
        when 'Utility'
            then p1 * relevant_retrieved
            + p2 * (num_ret - relevant_retrieved)
            + p3 * (num_rel - relevant_retrieved)
            + p4 * (collection_size + relevant_retrieved - num_ret - num_rel)
        else error('metric_precision: no formula for measure kind ' || kind)
    end::double as value
from set_precision_recall
