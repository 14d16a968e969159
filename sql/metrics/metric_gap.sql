-- reads: evaluation_gains, evaluation_ideal_gains, evaluation_pairs, evaluation_ranks,
--        requested_measures
-- produces: metric_gap (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_gap: graded average precision per (run_id, topic_id, measure): GAP, GAP@l, nGAP@l.
--        requested_measures(measure, kind, gain, cutoff).
-- References: Robertson, Kanoulas & Yilmaz, SIGIR 2010 (GAP); Sakai & Song, SIGIR 2011 (GAP@l,
-- nGAP@l with uniform threshold probabilities); NTCIREVAL (T. Sakai) -gap, whose m(m + 1)
-- form is followed (docs/adhoc-measures.md sections 3.2 and 4.6).
--
-- Notation: v(r) the gain of the document at rank r under the measure's gain profile (linear:
-- the level, NTCIREVAL compute; another profile: the gain, as gcompute), 0 for unpooled,
-- unjudged and non-relevant documents; the ideal list holds every judged document with a
-- positive gain, gains descending, R documents, v*(j).
--   G(r)    sum over k <= r of m(m + 1), m = min(v(r), v(k))
--   GAP@l   [sum over r <= l with v(r) > 0 of G(r)/r] / [sum over j <= R of v*(j)(v*(j) + 1)]
--           (the seed's GAP@l, undernormalised for l < R; GAP without a cutoff sums over the
--           whole list)
--   nGAP@l  the same numerator / [sum over j <= min(l, R) of v*(j)(v*(j) + 1)] (the ideal
--           list's value at l; NTCIREVAL prints it as GAP@l)
-- 0 when R = 0 and for topics the run lacks. G(r) is computed from running counts of each
-- distinct gain (G(r) = sum over gains w of count_w(r) m(m + 1), m = min(v(r), w)): linear in
-- the list length times the number of gains, never the pairs of ranks.
with measures as (
    select
        measure,
        kind,
        gain as profile,
        cutoff
    from requested_measures
),

requested_profiles as (
    select distinct profile
    from measures
),

positive_gains as (
    select
        profile,
        topic_id,
        level,
        gain,
        judgments
    from evaluation_gains as gains
    where gain > 0 and profile in (select profile from requested_profiles)
),

-- the ideal list's positive-gain prefix (evaluation_ideal_gains), one row per distinct gain
ideal_groups as (
    select
        profile,
        topic_id,
        gain,
        count(*) as documents,
        max(ideal_rank) as last_ideal_rank
    from evaluation_ideal_gains
    where gain > 0 and profile in (select profile from requested_profiles)
    group by profile, topic_id, gain
),

ranked_gains as (
    select
        ranks.run_id,
        ranks.topic_id,
        ranks.rank,
        positive_gains.profile,
        positive_gains.gain
    from evaluation_ranks as ranks
    inner join positive_gains
        on ranks.topic_id = positive_gains.topic_id and ranks.level = positive_gains.level
),

gain_counts as (
    select
        ranked_gains.run_id,
        ranked_gains.topic_id,
        ranked_gains.profile,
        ranked_gains.rank,
        ranked_gains.gain,
        ideal_groups.gain as other_gain,
        sum((ranked_gains.gain = ideal_groups.gain)::integer) over (
            partition by
                ranked_gains.run_id, ranked_gains.topic_id, ranked_gains.profile, ideal_groups.gain
            order by ranked_gains.rank
            rows between unbounded preceding and current row
        ) as count_so_far
    from ranked_gains
    inner join ideal_groups
        on
            ranked_gains.profile = ideal_groups.profile
            and ranked_gains.topic_id = ideal_groups.topic_id
),

rank_precisions as (
    select
        run_id,
        topic_id,
        profile,
        rank,
        sum(
            count_so_far * least(gain, other_gain) * (least(gain, other_gain) + 1)
            order by other_gain desc
        ) / rank as graded_precision
    from gain_counts
    group by run_id, topic_id, profile, rank
),

ranked_lists as (
    select
        run_id,
        topic_id,
        profile,
        list({'rank': rank, 'graded_precision': graded_precision} order by rank) as ranked
    from rank_precisions
    group by run_id, topic_id, profile
),

ideal_lists as (
    select
        profile,
        topic_id,
        list(
            {
                'first_rank': last_ideal_rank - documents + 1,
                'last_rank': last_ideal_rank,
                'gain': gain
            }
            order by gain desc
        ) as ideal
    from ideal_groups
    group by profile, topic_id
),

measure_sums as (
    select
        pairs.run_id,
        pairs.topic_id,
        measures.measure,
        measures.kind,
        list_sum(
            list_transform(
                list_filter(
                    coalesce(ranked_lists.ranked, []),
                    lambda d: d.rank <= coalesce(measures.cutoff, d.rank)
                ),
                lambda d: d.graded_precision
            )
        ) as numerator,
        list_sum(
            list_transform(
                coalesce(ideal_lists.ideal, []),
                lambda d: d.gain * (d.gain + 1) * greatest(
                    0,
                    least(
                        d.last_rank,
                        coalesce(
                            case when measures.kind = 'nGAP' then measures.cutoff end, d.last_rank
                        )
                    ) - d.first_rank + 1
                )
            )
        ) as denominator
    from evaluation_pairs as pairs
    cross join measures
    left join ranked_lists
        on
            pairs.run_id = ranked_lists.run_id
            and pairs.topic_id = ranked_lists.topic_id
            and measures.profile = ranked_lists.profile
    left join ideal_lists
        on pairs.topic_id = ideal_lists.topic_id and measures.profile = ideal_lists.profile
),

scores as (
    select
        run_id,
        topic_id,
        measure,
        case
            when kind not in ('GAP', 'nGAP') then error('metric_gap: no formula for measure kind ' || kind)
            when denominator > 0 then coalesce(numerator, 0) / denominator
            else 0
        end::double as value
    from measure_sums
)

select * from scores
