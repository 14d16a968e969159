-- reads: evaluation_gains, evaluation_ideal_gains, evaluation_pairs, evaluation_ranks,
--        requested_measures
-- produces: metric_ntcir_dcg (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_ntcir_dcg: cumulative-gain measures per (run_id, topic_id, measure): JKnDCG@l (NTCIREVAL
-- nDCG@l), nCG@l, AnCG@l, AnDCG@l.
--        requested_measures(measure, kind, gain, b, cutoff).
-- References: Jarvelin & Kekalainen, TOIS 20(4) 2002 (discount); Sakai, AIRS 2005 (nCG_l,
-- AnCG_l, nDCG_l, AnDCG_l); NTCIREVAL (T. Sakai) nDCG@l with -logb; docs/adhoc-measures.md
-- sections 3.3 and 4.1.
--
-- Notation (docs/adhoc-measures.md section 0): g(r) the gain of the document at rank r under the
-- measure's gain profile (0 for unpooled, unjudged and non-relevant documents); the ideal list
-- holds every judged document with a positive gain, gains descending, n+ documents, g*(j);
-- cg(r) = sum over k <= r of g(k), cg*(r) likewise on the ideal list;
-- disc(r) = 1 for r <= b, log_b(r) for r > b (Jarvelin-Kekalainen; b = 0: 1 at rank 1, ln(r)
-- from rank 2, NTCIREVAL -logb 0); dcg(r) = sum over k <= r of g(k)/disc(k), dcg*(r) likewise.
-- Past the last rank with a gain and past n+ the running values stay constant (a short list
-- is padded with non-relevant documents, NTCIREVAL's l' = min(l, max(L, R)) carry-forward).
--   JKnDCG@l    dcg(l)/dcg*(l); without a cutoff the whole list (any l >= max(L, n+))
--   nCG@l       cg(l)/cg*(l): "freezes" once l > R (AIRS 2005)
--   AnCG@l      (1/l) sum over r <= l of cg(r)/cg*(r)
--   AnDCG@l     (1/l) sum over r <= l of dcg(r)/dcg*(r)
-- Every value is 0 when the topic has no positive gain (n+ = 0) and when the run lacks the
-- topic. The per-rank values are one series per (run, topic, profile, b) up to
-- K = min(max(n+, last rank with a gain), the largest requested cutoff); a measure reads the
-- series at l' = min(l, K) and adds (l - l') times the frozen ratio for AnCG and AnDCG.
-- Running sums are window sums (DuckDB may combine them in a tree: last-bit differences from
-- a sequential loop). MSnDCG@l is nDCG@l (metric_dcg.sql), P@l is PDoc_l (metric_precision.sql).
with measures as (
    select
        measure,
        kind,
        gain as profile,
        coalesce(b, 2) as log_base,
        cutoff
    from requested_measures
),

requested_profiles as (
    select distinct profile
    from measures
),

series_keys as (
    select
        profile,
        log_base,
        max(coalesce(cutoff, 4611686018427387904)) as longest_cutoff
    from measures
    where profile in (select profile from requested_profiles)
    group by profile, log_base
),

-- the ideal list's positive-gain prefix (evaluation_ideal_gains), n+ its length
ideal_positions as (
    select
        profile,
        topic_id,
        gain,
        ideal_rank as rank
    from evaluation_ideal_gains
    where gain > 0 and profile in (select profile from series_keys)
),

ideal_lengths as (
    select
        profile,
        topic_id,
        max(rank) as num_positive
    from ideal_positions
    group by profile, topic_id
),

ranked_gains as (
    select
        ranks.run_id,
        ranks.topic_id,
        ranks.rank,
        gains.profile,
        gains.gain
    from evaluation_ranks as ranks
    inner join evaluation_gains as gains on ranks.topic_id = gains.topic_id and ranks.level = gains.level
    where gains.gain <> 0 and gains.profile in (select profile from series_keys)
),

last_gain_ranks as (
    select
        run_id,
        topic_id,
        profile,
        max(rank) as last_rank
    from ranked_gains
    group by run_id, topic_id, profile
),

horizons as (
    select
        pairs.run_id,
        pairs.topic_id,
        ideal_lengths.profile,
        greatest(ideal_lengths.num_positive, coalesce(last_gain_ranks.last_rank, 0)) as horizon
    from evaluation_pairs as pairs
    inner join ideal_lengths on pairs.topic_id = ideal_lengths.topic_id
    left join last_gain_ranks
        on
            pairs.run_id = last_gain_ranks.run_id
            and pairs.topic_id = last_gain_ranks.topic_id
            and ideal_lengths.profile = last_gain_ranks.profile
),

series_ranks as (
    select
        horizons.run_id,
        horizons.topic_id,
        horizons.profile,
        series_keys.log_base,
        unnest(range(1, least(horizons.horizon, series_keys.longest_cutoff) + 1)) as rank
    from horizons
    inner join series_keys on horizons.profile = series_keys.profile
),

series_gains as (
    select
        series_ranks.run_id,
        series_ranks.topic_id,
        series_ranks.profile,
        series_ranks.log_base,
        series_ranks.rank,
        coalesce(ranked_gains.gain, 0) as gain,
        coalesce(ideal_positions.gain, 0) as ideal_gain,
        case
            when series_ranks.rank = 1 then 1
            when series_ranks.log_base = 0 then ln(series_ranks.rank)
            when series_ranks.rank <= series_ranks.log_base then 1
            else ln(series_ranks.rank) / ln(series_ranks.log_base)
        end as discount
    from series_ranks
    left join ranked_gains
        on
            series_ranks.run_id = ranked_gains.run_id
            and series_ranks.topic_id = ranked_gains.topic_id
            and series_ranks.profile = ranked_gains.profile
            and series_ranks.rank = ranked_gains.rank
    left join ideal_positions
        on
            series_ranks.topic_id = ideal_positions.topic_id
            and series_ranks.profile = ideal_positions.profile
            and series_ranks.rank = ideal_positions.rank
),

series_running as (
    select
        run_id,
        topic_id,
        profile,
        log_base,
        rank,
        sum(gain) over running as cg,
        sum(ideal_gain) over running as ideal_cg,
        sum(gain / discount) over running as dcg,
        sum(ideal_gain / discount) over running as ideal_dcg
    from series_gains
    window running as (
        partition by run_id, topic_id, profile, log_base
        order by rank
        rows between unbounded preceding and current row
    )
),

series as (
    select
        run_id,
        topic_id,
        profile,
        log_base,
        rank,
        cg,
        ideal_cg,
        dcg,
        ideal_dcg,
        sum(cg / ideal_cg) over running as ncg_sum,
        sum(dcg / ideal_dcg) over running as ndcg_sum
    from series_running
    window running as (
        partition by run_id, topic_id, profile, log_base
        order by rank
        rows between unbounded preceding and current row
    )
),

measure_points as (
    select
        pairs.run_id,
        pairs.topic_id,
        measures.measure,
        measures.kind,
        measures.cutoff,
        series.rank,
        series.cg,
        series.ideal_cg,
        series.dcg,
        series.ideal_dcg,
        series.ncg_sum,
        series.ndcg_sum
    from evaluation_pairs as pairs
    cross join measures
    left join horizons
        on
            pairs.run_id = horizons.run_id
            and pairs.topic_id = horizons.topic_id
            and measures.profile = horizons.profile
    left join series
        on
            pairs.run_id = series.run_id
            and pairs.topic_id = series.topic_id
            and measures.profile = series.profile
            and measures.log_base = series.log_base
            and least(coalesce(measures.cutoff, horizons.horizon), horizons.horizon) = series.rank
),

scores as (
    select
        run_id,
        topic_id,
        measure,
        case
            when rank is null then 0
            when kind = 'JKnDCG' then dcg / ideal_dcg
            when kind = 'nCG' then cg / ideal_cg
            when kind = 'AnCG' then (ncg_sum + (cutoff - rank) * cg / ideal_cg) / cutoff
            when kind = 'AnDCG' then (ndcg_sum + (cutoff - rank) * dcg / ideal_dcg) / cutoff
            else error('metric_ntcir_dcg: no formula for measure kind ' || kind)
        end::double as value
    from measure_points
)

select * from scores
