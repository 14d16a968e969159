-- reads: evaluation_gain_maxima, evaluation_gains, evaluation_ideal_gains, evaluation_pairs,
--        evaluation_ranks, requested_measures
-- produces: metric_cascade (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_cascade: cascade measures per (run_id, topic_id, measure): ERR, ERR@l, nERR@l, EBR,
-- nEBR@l, iRBU, niRBU@l, nRBP@l.
--        evaluation_ideal_gains, requested_measures(measure, kind, gain, stop, beta, u, p,
--        cutoff); macro blended_ratio.
-- References: Chapelle, Metzler, Zhang & Grinspan, CIKM 2009 (ERR); gdeval 1.2a (TREC Web
-- 2010; ir_measures' ERR@k); Sakai & Song, SIGIR 2011 (nERR); NTCIREVAL (T. Sakai) ERR, ERR@l,
-- nERR@l, EBR (2018), iRBU (2019), nEBR@l, niRBU@l, nRBP@l (2020); Amigo, Spina &
-- Carrillo-de-Albornoz, SIGIR 2018 (RBU); docs/adhoc-measures.md sections 3.3 and 4.5.
--
-- Notation (docs/adhoc-measures.md section 0): g(r) the gain at rank r under the measure's gain
-- profile (0 for unpooled, unjudged and non-relevant documents; gains are taken to be >= 0, as
-- in NTCIREVAL); gmax the profile's highest gain (evaluation_gain_maxima: NTCIREVAL's last -g
-- value); the ideal list holds every judged document with a positive gain, gains descending,
-- g*(j); C(r) the documents of level >= 1 in the top r, cg(r) and cg*(r) cumulative gains.
-- Stop probability pi of a gain g (the `stop` parameter; EBR, iRBU and nRBP use 'ntcir'):
--   'gdeval'    (2^g - 1)/2^4 (gdeval's fixed maximum grade 4; like gdeval, a topic with a gain
--               above 4 is an error)
--   'ntcir'     g/(gmax + 1) (NTCIREVAL; -g 1:3:7 gives Chapelle's setting for h = 3)
--   'chapelle'  (2^g - 1)/2^gmax (Chapelle et al.: with linear gains g is the level and gmax
--               the highest level h)
-- reach(r) = product over k < r of (1 - pi(k)) (window product; reach(1) = 1); likewise
-- pi*(j), reach*(j) on the ideal list. BR(r) = (beta cg(r) + C(r))/(beta cg*(r) + r), with
-- cg*(r) = cg*(n+) past the ideal list. Sums run over r <= l with @l, the whole list otherwise
-- (NTCIREVAL's l' = min(l, max(L, R)) adds nothing: terms past L and past n+ are 0):
--   ERR         sum of pi(r) reach(r) / r
--   nERR        ERR@l / (the ideal list's ERR@l); 0 when that is 0
--   EBR         sum of BR(r) pi(r) reach(r)
--   nEBR        EBR@l / sum over j <= l of pi*(j) reach*(j)
--   iRBU        sum of u^r pi(r) reach(r) (exponent r, not r - 1)
--   niRBU       iRBU@l / sum over j <= l of u^j pi*(j) reach*(j)
--   nRBP        sum of g(r) p^(r-1) / sum over j <= l of g*(j) p^(j-1)
-- Topics a run lacks and topics without a positive gain score 0.
-- Floating point: per-measure sums are list_sums in rank order; the running products and
-- cumulative gains are window aggregates (last-bit differences from a sequential loop).
with measures as (
    select
        measure,
        kind,
        gain as profile,
        coalesce(stop, 'ntcir') as stop_rule,
        beta,
        u,
        p,
        cutoff
    from requested_measures
),

stop_keys as (
    select distinct
        profile,
        stop_rule
    from measures
),

gain_stops as (
    select distinct
        gains.profile,
        gains.topic_id,
        stop_keys.stop_rule,
        gains.gain,
        case stop_keys.stop_rule
            when 'ntcir' then gains.gain / (gain_maxima.max_gain + 1)
            when 'chapelle' then (pow(2.0, gains.gain) - 1) / pow(2.0, gain_maxima.max_gain)
            when 'gdeval'
                then case
                    when gains.gain > 4
                        then error(
                            'metric_cascade: stop=gdeval takes gains up to 4 (gdeval''s maximum '
                            || 'grade); topic ' || gains.topic_id || ' has gain '
                            || gains.gain::varchar
                        )
                    else (pow(2.0, gains.gain) - 1) / 16
                end
        end as stop_probability
    from evaluation_gains as gains
    inner join stop_keys on gains.profile = stop_keys.profile
    left join evaluation_gain_maxima as gain_maxima
        on gains.profile = gain_maxima.profile and gains.topic_id = gain_maxima.topic_id
    where gains.gain > 0
),

-- the ideal list's positive-gain prefix (evaluation_ideal_gains), n+ its length
ideal_positions as (
    select
        profile,
        topic_id,
        gain,
        ideal_rank as rank,
        ideal_gain_so_far as ideal_cg,
        max(ideal_rank) over (partition by profile, topic_id) as num_positive
    from evaluation_ideal_gains
    where gain > 0 and profile in (select profile from stop_keys)
),

ideal_stops as (
    select
        ideal_positions.profile,
        ideal_positions.topic_id,
        gain_stops.stop_rule,
        ideal_positions.rank,
        ideal_positions.gain,
        gain_stops.stop_probability,
        coalesce(
            product(1 - gain_stops.stop_probability) over (
                partition by ideal_positions.profile, ideal_positions.topic_id, gain_stops.stop_rule
                order by ideal_positions.rank
                rows between unbounded preceding and 1 preceding
            ),
            1
        ) as reach
    from ideal_positions
    inner join gain_stops
        on
            ideal_positions.profile = gain_stops.profile
            and ideal_positions.topic_id = gain_stops.topic_id
            and ideal_positions.gain = gain_stops.gain
),

ideal_lists as (
    select
        profile,
        topic_id,
        stop_rule,
        list(
            {'rank': rank, 'gain': gain, 'stop': stop_probability, 'reach': reach} order by rank
        ) as ideal
    from ideal_stops
    group by profile, topic_id, stop_rule
),

ranked_gains as (
    select
        ranks.run_id,
        ranks.topic_id,
        ranks.rank,
        ranks.level,
        gains.profile,
        gains.gain
    from evaluation_ranks as ranks
    inner join evaluation_gains as gains on ranks.topic_id = gains.topic_id and ranks.level = gains.level
    where (gains.gain <> 0 or ranks.level >= 1) and gains.profile in (select profile from stop_keys)
),

ranked_running as (
    select
        run_id,
        topic_id,
        rank,
        profile,
        gain,
        sum(gain) over running as cg,
        count(*) filter (where level >= 1) over running as relevant_so_far
    from ranked_gains
    window running as (
        partition by run_id, topic_id, profile
        order by rank
        rows between unbounded preceding and current row
    )
),

ranked_stops as (
    select
        ranked_running.run_id,
        ranked_running.topic_id,
        ranked_running.profile,
        stop_keys.stop_rule,
        ranked_running.rank,
        ranked_running.gain,
        coalesce(gain_stops.stop_probability, 0) as stop_probability,
        coalesce(
            product(1 - coalesce(gain_stops.stop_probability, 0)) over (
                partition by
                    ranked_running.run_id, ranked_running.topic_id, ranked_running.profile,
                    stop_keys.stop_rule
                order by ranked_running.rank
                rows between unbounded preceding and 1 preceding
            ),
            1
        ) as reach,
        ranked_running.cg,
        ranked_running.relevant_so_far,
        coalesce(ideal_prefixes.ideal_cg, 0) as ideal_cg
    from ranked_running
    inner join stop_keys on ranked_running.profile = stop_keys.profile
    left join gain_stops
        on
            ranked_running.profile = gain_stops.profile
            and ranked_running.topic_id = gain_stops.topic_id
            and stop_keys.stop_rule = gain_stops.stop_rule
            and ranked_running.gain = gain_stops.gain
    left join (
        select distinct
            profile,
            topic_id,
            num_positive
        from ideal_positions
    ) as ideal_lengths
        on
            ranked_running.profile = ideal_lengths.profile
            and ranked_running.topic_id = ideal_lengths.topic_id
    left join ideal_positions as ideal_prefixes
        on
            ranked_running.profile = ideal_prefixes.profile
            and ranked_running.topic_id = ideal_prefixes.topic_id
            and least(ranked_running.rank, ideal_lengths.num_positive) = ideal_prefixes.rank
),

ranked_lists as (
    select
        run_id,
        topic_id,
        profile,
        stop_rule,
        list(
            {
                'rank': rank, 'gain': gain, 'stop': stop_probability, 'reach': reach, 'cg': cg,
                'relevant': relevant_so_far, 'ideal_cg': ideal_cg
            }
            order by rank
        ) as ranked
    from ranked_stops
    group by run_id, topic_id, profile, stop_rule
),

measure_inputs as (
    select
        pairs.run_id,
        pairs.topic_id,
        measures.measure,
        measures.kind,
        measures.beta,
        measures.u,
        measures.p,
        list_filter(
            coalesce(ranked_lists.ranked, []), lambda d: d.rank <= coalesce(measures.cutoff, d.rank)
        ) as ranked,
        list_filter(
            coalesce(ideal_lists.ideal, []), lambda d: d.rank <= coalesce(measures.cutoff, d.rank)
        ) as ideal
    from evaluation_pairs as pairs
    cross join measures
    left join ranked_lists
        on
            pairs.run_id = ranked_lists.run_id
            and pairs.topic_id = ranked_lists.topic_id
            and measures.profile = ranked_lists.profile
            and measures.stop_rule = ranked_lists.stop_rule
    left join ideal_lists
        on
            pairs.topic_id = ideal_lists.topic_id
            and measures.profile = ideal_lists.profile
            and measures.stop_rule = ideal_lists.stop_rule
),

measure_sums as (
    select
        run_id,
        topic_id,
        measure,
        kind,
        case
            when kind in ('ERR', 'nERR')
                then list_sum(list_transform(ranked, lambda d: d.stop * d.reach / d.rank))
            when kind in ('EBR', 'nEBR')
                then list_sum(
                    list_transform(
                        ranked,
                        lambda d: blended_ratio(beta, d.cg, d.relevant, d.ideal_cg, d.rank)
                        * d.stop * d.reach
                    )
                )
            when kind in ('iRBU', 'niRBU')
                then list_sum(list_transform(ranked, lambda d: pow(u, d.rank) * d.stop * d.reach))
            when kind = 'nRBP'
                then list_sum(list_transform(ranked, lambda d: d.gain * pow(p, d.rank - 1)))
            else error('metric_cascade: no formula for measure kind ' || kind)
        end as total,
        case kind
            when 'nERR' then list_sum(list_transform(ideal, lambda d: d.stop * d.reach / d.rank))
            when 'nEBR' then list_sum(list_transform(ideal, lambda d: d.stop * d.reach))
            when 'niRBU'
                then list_sum(list_transform(ideal, lambda d: pow(u, d.rank) * d.stop * d.reach))
            when 'nRBP' then list_sum(list_transform(ideal, lambda d: d.gain * pow(p, d.rank - 1)))
        end as ideal_total
    from measure_inputs
),

scores as (
    select
        run_id,
        topic_id,
        measure,
        case
            when kind in ('ERR', 'EBR', 'iRBU') then coalesce(total, 0)
            when ideal_total > 0 then coalesce(total, 0) / ideal_total
            else 0
        end::double as value
    from measure_sums
)

select * from scores
