-- reads: evaluation_levels, evaluation_pairs, evaluation_ranks, requested_measures
-- produces: metric_cwl (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_cwl: the C/W/L measures of cwl_eval per (run_id, topic_id, measure): INST(T), INSQ(T),
-- BPM(T)@K, BPMDynamic(T, hb, gain_med)@K, SDCG@k, NERR8@k, NERR9@k, NERR10(p), NERR11(T), each
-- as expected utility per item (cwl_eval's EU, ir_measures' value) or, with `expected`, cwl_eval's
-- expected total utility (ETU), expected cost per item (EC), expected total cost (ETC) or
-- expected depth (EI).
-- Reads: evaluation_pairs, evaluation_ranks, evaluation_levels,
--        requested_measures(measure, kind, T, cutoff, p, hb, gain_med, min_rel, max_rel, expected).
-- References: Moffat, Bailey, Scholer & Thomas, TOIS 35(3) 2017 (C/W/L, INST, INSQ); Azzopardi,
-- Thomas & Moffat, SIGIR 2019 (cwl_eval); Zhang et al., SIGIR 2017 (BPM); Azzopardi,
-- Mackenzie & Moffat, ICTIR 2021 (NERR, equations 8-11); cwl_eval 1.0.12 (ireval/cwl,
-- cwl/ruler/measures/) and ir_measures' cwl_eval provider (gains scaled from min_rel..max_rel).
-- The user examines ranks i = 1..n, n = 1000 (cwl_eval's max_n: a list is cut or padded with
-- documents of gain 0 to n), each of cost 1. A document's gain is its level, negative levels as 0,
-- clipped to [min_rel, max_rel] and scaled to [0, 1]: (level - min_rel) / (max_rel - min_rel)
-- (max_rel none: the campaign's highest level); an unjudged document has gain 0. cg(i) = the gains
-- summed to i. C(i), the probability of going on from rank i:
--   INST(T)     ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - cg(i)
--   INSQ(T)     ((i + 2T - 1) / (i + 2T))^2
--   BPM(T)@K    1 while cg(i) < T and i < K, then 0 (the static Bejewelled Player Model)
--   BPMDynamic  1 while cg(i) < T(i) and i < K, T(1) = T, T(i + 1) = T(i) + hb (g(i) - gain_med):
--               cwl_eval's BPMDCWLMetric, which moves the benefit bound T only (its cost bound K
--               stays; Zhang et al.'s hc, which would move K, therefore has no effect there)
--   SDCG@k      log(i + 1) / log(i + 2) for i < k, then 0 (scaled DCG)
--   NERR8@k     1 - g(i) for i < k, then 0          NERR9@k   i/(i + 1) (1 - g(i)) for i < k
--   NERR10(p)   p (1 - g(i))                        NERR11(T) ((i + 2T - 1)/(i + 2T))^2 (1 - g(i))
-- With P(i) = product of C(j) over j < i, S = sum of P(i), W(i) = P(i)/S and L(i) = P(i) (1 - C(i)):
--   EU = sum W(i) g(i); ETU = sum L(i) cg(i); EC = sum W(i); ETC = sum L(i) i; EI = S.
with measures as (
    select
        requested_measures.*,
        coalesce(
            requested_measures.max_rel,
            (select max(level) from evaluation_levels)
        )::double as top_level
    from requested_measures
),

positions as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        unnest(range(1, 1001)) as i
    from evaluation_pairs
),

gains as (
    select
        positions.run_id,
        positions.topic_id,
        measures.measure,
        positions.i,
        case
            when evaluation_ranks.level is null or measures.top_level <= measures.min_rel then 0.0
            else (least(greatest(greatest(evaluation_ranks.level, 0), measures.min_rel), measures.top_level)
                - measures.min_rel) / (measures.top_level - measures.min_rel)
        end as g
    from positions
    cross join measures
    left join evaluation_ranks
        on
            positions.run_id = evaluation_ranks.run_id
            and positions.topic_id = evaluation_ranks.topic_id
            and positions.i = evaluation_ranks.rank
),

cumulated as (
    select
        gains.*,
        sum(g) over (
            partition by run_id, topic_id, measure order by i rows between unbounded preceding and current row
        ) as cg
    from gains
),

-- BPM's bounds compare sums that cwl_eval adds up one rank after another (numpy cumsum, and
-- T += hb (g - gain_med)); they are added in the same order here, over the ranks before K (the
-- only ranks where C(i) can be 1), so that a sum landing exactly on a bound decides alike
bpm_heads as (
    select
        gains.run_id,
        gains.topic_id,
        gains.measure,
        list(gains.g order by gains.i) as head
    from gains
    inner join measures on gains.measure = measures.measure
    where measures.kind in ('BPM', 'BPMDynamic') and gains.i < measures.cutoff
    group by gains.run_id, gains.topic_id, gains.measure
),

bpm_bounds as (
    select
        bpm_heads.run_id,
        bpm_heads.topic_id,
        bpm_heads.measure,
        ranks.i,
        list_reduce(bpm_heads.head[1:ranks.i], lambda total, g: total + g, 0.0::double) as gain_so_far,
        case measures.kind
            when 'BPMDynamic'
                then list_reduce(
                    bpm_heads.head[1:ranks.i - 1],
                    lambda bound, g: bound + measures.hb * (g - measures.gain_med),
                    measures.T
                )
            else measures.T
        end as gain_bound
    from bpm_heads
    inner join measures on bpm_heads.measure = measures.measure
    cross join lateral (select unnest(range(1, len(bpm_heads.head) + 1)) as i) as ranks
),

bpm_continues as (
    select
        run_id,
        topic_id,
        measure,
        i,
        bool_and(gain_so_far < gain_bound) over (
            partition by run_id, topic_id, measure order by i rows between unbounded preceding and current row
        ) as going_on
    from bpm_bounds
),

continuations as (
    select
        cumulated.run_id,
        cumulated.topic_id,
        cumulated.measure,
        cumulated.i,
        cumulated.g,
        cumulated.cg,
        measures.kind,
        measures.expected,
        case measures.kind
            when 'INST'
                then pow((cumulated.i + measures.T + (measures.T - cumulated.cg) - 1.0)
                    / (cumulated.i + measures.T + (measures.T - cumulated.cg)), 2.0)
            when 'INSQ' then pow((cumulated.i + 2.0 * measures.T - 1.0) / (cumulated.i + 2.0 * measures.T), 2.0)
            when 'BPM' then case when coalesce(bpm_continues.going_on, false) then 1.0 else 0.0 end
            when 'BPMDynamic' then case when coalesce(bpm_continues.going_on, false) then 1.0 else 0.0 end
            when 'SDCG' then case when cumulated.i < measures.cutoff then ln(cumulated.i + 1.0) / ln(cumulated.i + 2.0) else 0.0 end
            when 'NERR8' then case when cumulated.i < measures.cutoff then 1.0 - cumulated.g else 0.0 end
            when 'NERR9'
                then case
                    when cumulated.i < measures.cutoff then (cumulated.i / (cumulated.i + 1.0)) * (1.0 - cumulated.g)
                    else 0.0
                end
            when 'NERR10' then measures.p * (1.0 - cumulated.g)
            when 'NERR11'
                then pow((cumulated.i + 2.0 * measures.T - 1.0) / (cumulated.i + 2.0 * measures.T), 2.0)
                * (1.0 - cumulated.g)
            else error('metric_cwl: no formula for measure kind ' || measures.kind)
        end as c
    from cumulated
    inner join measures on cumulated.measure = measures.measure
    left join bpm_continues
        on
            cumulated.run_id = bpm_continues.run_id
            and cumulated.topic_id = bpm_continues.topic_id
            and cumulated.measure = bpm_continues.measure
            and cumulated.i = bpm_continues.i
),

reached as (
    select
        continuations.*,
        coalesce(product(c) over before, 1.0) as p_reach
    from continuations
    window before as (partition by run_id, topic_id, measure order by i rows between unbounded preceding and 1 preceding)
),

sums as (
    select
        run_id,
        topic_id,
        measure,
        any_value(expected) as expected,
        sum(p_reach) as depth,
        sum(p_reach * g) as weighted_gain,
        sum(p_reach * (1.0 - c) * cg) as total_utility,
        sum(p_reach * (1.0 - c) * i) as total_cost
    from reached
    group by run_id, topic_id, measure
)

select
    run_id,
    topic_id,
    measure,
    case expected
        when 'utility' then weighted_gain / depth
        when 'total_utility' then total_utility
        when 'cost' then depth / depth
        when 'total_cost' then total_cost
        when 'items' then depth
    end::double as value
from sums
