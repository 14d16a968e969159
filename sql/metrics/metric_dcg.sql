-- reads: evaluation_gain_maxima, evaluation_gains, evaluation_pairs, evaluation_ranks,
--        evaluation_topics, requested_measures
-- produces: metric_dcg (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_dcg: gain-based measures per (run_id, topic_id, measure): nDCG, nDCG@k, DCG, DCG@k,
-- IdealDCG, IdealDCG@k, nDCGRel, RnDCG, BinG, G, RBP.
--        evaluation_gain_maxima, requested_measures(measure, kind, gain, cutoff, rel, p, gain_norm).
-- References: Jarvelin & Kekalainen, TOIS 20(4) 2002 (nDCG); Moffat & Zobel, TOIS 27(1) 2008
-- (RBP); NTCIREVAL (T. Sakai) MSnDCG@l (= nDCG@l) and RBP, RBP@l (gain_norm = 'gmax'). Exact ports of trec_eval 10.0 m_ndcg.c (ndcg), m_ndcg_cut.c (ndcg_cut), m_ndcg_rel.c
-- (ndcg_rel), m_Rndcg.c (Rndcg), m_binG.c (binG), m_G.c (G), m_rbp.c (rbp), gain_init.c
-- (setup_gains), form_res_rels.c (levels); docs/adhoc-measures.md section 2.4.
--
-- Notation (docs/adhoc-measures.md section 0): L list length; g(r) the gain of the document at rank r
-- under the measure's gain profile (evaluation_gains; unpooled and pooled-unjudged documents
-- have gain 0); DCG(k) = sum over r <= min(k, L) of g(r)/log2(r + 1), summed in rank order.
-- The ideal list holds every judged document with a positive gain, gains descending; n+ is its
-- length, g*(j) its gains, IDCG(k) = sum over j <= min(k, n+) of g*(j)/log2(j + 1).
--   nDCG        DCG(L)/IDCG(n+): the ideal has no depth limit (trec_eval ndcg); 0 if IDCG = 0
--   nDCG@k      DCG(k)/IDCG(k) (trec_eval ndcg_cut_k with the linear profile; other profiles
--               are a pyeval extension, trec_eval's ndcg_cut takes level gains only)
--   DCG, IdealDCG   DCG(L) and IDCG(n+), nDCG's numerator and denominator (trec_eval dcg and
--               ideal_dcg, m_ndcg.c); with @k, DCG(k) and IDCG(k) (ranx dcg@k)
--   nDCGRel     (sum over retrieved docs with g(r) > 0 of DCG(r)/IDCG(min(r, n+))
--               + (n+ - m) DCG(L)/IDCG(n+)) / n+, m = retrieved docs with g > 0; 0 unless > 0
--   RnDCG       mean of DCG(min(k, L))/IDCG(k) over the R-level boundaries k (the last ideal
--               position of each run of equal gains, n+ included), plus DCG(L)/IDCG(n+) when
--               L >= n+ + 2 (m_Rndcg.c's loop adds that term only when its ideal walk ended
--               strictly before the last rank); 0 when R = 0, R counted at level >= rel
--               (trec_eval -l: m_Rndcg.c returns early when num_rel is 0); undefined
--               (zero_by_zero) when R > 0 but no boundary exists (every relevant gain is 0,
--               e.g. -l 0 on a topic judged 0 only: m_Rndcg.c divides 0 by 0)
--   BinG        (1/R) sum over the i-th retrieved document with level >= rel, at rank r, of
--               1/log2(2 + r - i), R at threshold rel (trec_eval -l); 0 if none is retrieved
--   G           (1/sum of g*) sum over r with g(r) <> 0 of g(r)/log2(2 + cost(r) - cg(r)),
--               cost(r) = sum over j <= r of max(g*(j), 1) (g*(j) = 0 beyond n+), cg(r) the
--               cumulative gain of the ranking
--   RBP         (1 - p) sum over r of x(r) p^(r-1), r <= k with @k: x = [level >= rel] when
--               rel is given (gain and gain_norm do not apply); otherwise the gain g(r),
--               divided by the topic's highest judged gain when gain_norm = 'trec_eval' and that
--               gain exceeds 1 (m_rbp.c rescales gains to (gain - min)/(max - min) when one lies
--               outside [0, 1]; its min is read uninitialised, the NIST test outputs match
--               min = 0; with linear gains the highest gain is the highest level), or by gmax
--               (evaluation_gain_maxima: the profile's highest gain, NTCIREVAL's last -g value;
--               0 if gmax <= 0) when gain_norm = 'gmax' (NTCIREVAL RBP with p = 0.95; RBP@l sums
--               to l, NTCIREVAL's l' = min(l, max(L, R)) adds nothing past L). 'none' with rel
--               null and linear gains is ir_measures' graded RBP.
-- Topics a run lacks (num_ret = 0) score 0 everywhere, as trec_eval -c prints them. A gain
-- profile that is neither built in nor in gain_profiles raises an error.
--
-- Floating point: every total (DCG, IDCG, DCG@k, IDCG@k, the R-level values, the nDCGRel, G,
-- BinG and RBP sums) is an ordered aggregate or a list_sum, i.e. summed in the order trec_eval
-- adds, so nDCG and nDCG@k are bit-identical to trec_eval's. The running values nDCGRel and G
-- need at every rank (DCG(r) and IDCG(j); cost(r) and cg(r)) are window sums, which DuckDB
-- combines in a tree: cost and cg are exact for integer-valued gains, DCG(r) and IDCG(j) may
-- differ from trec_eval's running sums in the last bit (far below the printed 4 decimals).
-- RBP weighs rank r by p^(r-1) obtained as trec_eval's loop obtains it, by repeated
-- multiplication (repeated_powers): pow() can differ in the last bit and turn a printed
-- 4th decimal.
--
-- Gain order: trec_eval sorts gain levels with comp_rel_gain, which returns (int)(g1 - g2),
-- so custom gains closer than 1 compare equal and their order is left to qsort (with gains
-- 0.5 and 0 it can even empty the ideal list). pyeval orders gains exactly; the two agree
-- whenever distinct gains differ by at least 1 (every built-in profile, and the NIST fixtures).
-- Gains differing in value start a new R-level in RnDCG; levels with equal gains share one.
--
-- Judgment counts per level (for the ideal list) come with evaluation_gains. This ideal list is
-- trec_eval's (m_ndcg.c: every judged document with a positive gain, level 0 included when a
-- stored profile gives it one), not the stage evaluation_ideal_gains (the relevant documents,
-- level >= 1, as NTCIREVAL has it); they agree unless a level below 1 gains
-- (tests/sql/test_one_definition.py).
with pairs as (
    select
        run_id,
        topic_id,
        num_ret
    from evaluation_pairs
),

ranks as (
    select
        run_id,
        topic_id,
        rank,
        level
    from evaluation_ranks
),

topics as (
    select
        topic_id,
        rel,
        num_rel,
        num_nonrel
    from evaluation_topics
),

gains as (
    select
        profile,
        topic_id,
        level,
        gain,
        judgments
    from evaluation_gains
),

gain_maxima as (
    select
        profile,
        topic_id,
        max_gain
    from evaluation_gain_maxima
),

topic_gain_maxima as (
    select
        profile,
        topic_id,
        max(gain) as max_judged_gain
    from gains
    group by profile, topic_id
),

measures as (
    select
        measure,
        kind,
        gain as profile,
        cutoff,
        rel,
        p,
        gain_norm
    from requested_measures
),

-- RBP's rank weights p^0, p^1, ... as m_rbp.c multiplies them, one list per p
rbp_powers as (
    select
        rbp_measures.p,
        repeated_powers(rbp_measures.p, longest.num_ret) as powers
    from (select distinct p from measures where kind = 'RBP') as rbp_measures
    cross join (select coalesce(max(num_ret), 0) as num_ret from pairs) as longest
),

level_judgments as (
    select distinct
        topic_id,
        level,
        judgments
    from gains
    where level >= 0
),

staged_profiles as (
    select distinct profile
    from gains
),

requested_profiles as (
    select distinct
        case
            when staged_profiles.profile is not null or not exists (select 1 from gains)
                then measures.profile
            else error(
                'metric_dcg: unknown gain profile ' || measures.profile
                || ' (neither linear, exp nor a profile of gain_profiles)'
            )
        end as profile
    from measures
    left join staged_profiles on measures.profile = staged_profiles.profile
    where measures.profile is not null
),

profile_level_gains as (
    select
        gains.profile,
        gains.topic_id,
        gains.gain,
        level_judgments.judgments
    from gains
    inner join requested_profiles on gains.profile = requested_profiles.profile
    inner join level_judgments
        on gains.topic_id = level_judgments.topic_id and gains.level = level_judgments.level
    where gains.gain > 0
),

ideal_gain_groups as (
    select
        profile,
        topic_id,
        gain,
        sum(judgments)::bigint as documents,
        sum(sum(judgments)) over (partition by profile, topic_id order by gain desc)::bigint
            as last_ideal_rank
    from profile_level_gains
    group by profile, topic_id, gain
),

ideal_positions as (
    select
        profile,
        topic_id,
        gain,
        unnest(range(last_ideal_rank - documents + 1, last_ideal_rank + 1)) as ideal_rank
    from ideal_gain_groups
),

ideal_gains_discounted as (
    select
        profile,
        topic_id,
        ideal_rank,
        gain,
        gain / log2(ideal_rank + 1) as discounted_gain
    from ideal_positions
),

ideal_gain_lists as (
    select
        profile,
        topic_id,
        list(gain order by ideal_rank) as ideal_gains,
        list(discounted_gain order by ideal_rank) as ideal_discounted_gains
    from ideal_gains_discounted
    group by profile, topic_id
),

ideal_lists as (
    select
        profile,
        topic_id,
        len(ideal_gains) as num_positive,
        list_sum(ideal_discounted_gains) as ideal_dcg,
        list_sum(ideal_gains) as ideal_gain,
        ideal_discounted_gains
    from ideal_gain_lists
),

ideal_boundaries as (
    select
        profile,
        topic_id,
        list(last_ideal_rank order by last_ideal_rank) as boundary_ranks
    from ideal_gain_groups
    group by profile, topic_id
),

ideal_summaries as (
    select
        ideal_lists.profile,
        ideal_lists.topic_id,
        ideal_lists.num_positive,
        ideal_lists.ideal_dcg,
        ideal_lists.ideal_gain,
        list_transform(
            ideal_boundaries.boundary_ranks,
            lambda k: {
                'ideal_rank': k,
                'ideal_dcg': list_sum(ideal_lists.ideal_discounted_gains[1:k])
            }
        ) as boundaries
    from ideal_lists
    inner join ideal_boundaries
        on
            ideal_lists.profile = ideal_boundaries.profile
            and ideal_lists.topic_id = ideal_boundaries.topic_id
),

ideal_cutoffs as (
    select
        ideal_lists.profile,
        ideal_lists.topic_id,
        cutoffs.cutoff,
        list_sum(ideal_lists.ideal_discounted_gains[1:cutoffs.cutoff]) as ideal_dcg
    from ideal_lists
    inner join (
        select distinct
            profile,
            cutoff
        from measures
        where kind in ('nDCG', 'IdealDCG') and cutoff is not null
    ) as cutoffs
        on ideal_lists.profile = cutoffs.profile
),

walk_profiles as (
    select distinct profile
    from measures
    where kind in ('nDCGRel', 'G')
),

ideal_prefixes as (
    select
        ideal_gains_discounted.profile,
        ideal_gains_discounted.topic_id,
        ideal_gains_discounted.ideal_rank,
        sum(ideal_gains_discounted.discounted_gain) over running_total as ideal_dcg_so_far,
        sum(greatest(ideal_gains_discounted.gain, 1)) over running_total as ideal_cost_so_far
    from ideal_gains_discounted
    inner join walk_profiles on ideal_gains_discounted.profile = walk_profiles.profile
    window running_total as (
        partition by ideal_gains_discounted.profile, ideal_gains_discounted.topic_id
        order by ideal_gains_discounted.ideal_rank
        rows between unbounded preceding and current row
    )
),

ranked_gains as (
    select
        ranks.run_id,
        ranks.topic_id,
        ranks.rank,
        gains.profile,
        gains.gain,
        gains.gain / log2(ranks.rank + 1) as discounted_gain
    from ranks
    inner join gains on ranks.topic_id = gains.topic_id and ranks.level = gains.level
    inner join requested_profiles on gains.profile = requested_profiles.profile
    where gains.gain <> 0
),

ranked_summaries as (
    select
        run_id,
        topic_id,
        profile,
        list(
            {'rank': rank, 'gain': gain, 'discounted_gain': discounted_gain} order by rank
        ) as discounted_gains,
        sum(discounted_gain order by rank) as dcg,
        count(*) filter (where gain > 0) as positive_retrieved
    from ranked_gains
    group by run_id, topic_id, profile
),

ranked_running as (
    select
        ranked_gains.run_id,
        ranked_gains.topic_id,
        ranked_gains.rank,
        ranked_gains.profile,
        ranked_gains.gain,
        sum(ranked_gains.discounted_gain) over running_total as dcg_so_far,
        sum(ranked_gains.gain) over running_total as gain_so_far
    from ranked_gains
    inner join walk_profiles on ranked_gains.profile = walk_profiles.profile
    window running_total as (
        partition by ranked_gains.run_id, ranked_gains.topic_id, ranked_gains.profile
        order by ranked_gains.rank
        rows between unbounded preceding and current row
    )
),

ranked_against_ideal as (
    select
        ranked_running.run_id,
        ranked_running.topic_id,
        ranked_running.rank,
        ranked_running.profile,
        ranked_running.gain,
        ranked_running.dcg_so_far / ideal_prefixes.ideal_dcg_so_far as ndcg_so_far,
        coalesce(ideal_prefixes.ideal_cost_so_far, 0)
        + greatest(ranked_running.rank - coalesce(ideal_lists.num_positive, 0), 0) as cost_so_far,
        ranked_running.gain_so_far
    from ranked_running
    left join ideal_lists
        on
            ranked_running.profile = ideal_lists.profile
            and ranked_running.topic_id = ideal_lists.topic_id
    left join ideal_prefixes
        on
            ranked_running.profile = ideal_prefixes.profile
            and ranked_running.topic_id = ideal_prefixes.topic_id
            and least(ranked_running.rank, ideal_lists.num_positive) = ideal_prefixes.ideal_rank
),

ranked_walks as (
    select
        run_id,
        topic_id,
        profile,
        sum(ndcg_so_far order by rank) filter (where gain > 0) as ndcg_at_positive_sum,
        sum(gain / log2(2 + cost_so_far - gain_so_far) order by rank) as g_sum
    from ranked_against_ideal
    group by run_id, topic_id, profile
),

judged_lists as (
    select
        run_id,
        topic_id,
        list({'rank': rank, 'level': level} order by rank) as judged
    from ranks
    where level >= 0
    group by run_id, topic_id
),

measure_inputs as (
    select
        pairs.run_id,
        pairs.topic_id,
        pairs.num_ret,
        measures.measure,
        measures.kind,
        measures.cutoff,
        measures.rel,
        measures.p,
        measures.gain_norm,
        topics.num_rel,
        topic_gain_maxima.max_judged_gain,
        gain_maxima.max_gain,
        coalesce(ranked_summaries.discounted_gains, []) as discounted_gains,
        coalesce(ranked_summaries.dcg, 0) as dcg,
        coalesce(ranked_summaries.positive_retrieved, 0) as positive_retrieved,
        coalesce(ranked_walks.ndcg_at_positive_sum, 0) as ndcg_at_positive_sum,
        coalesce(ranked_walks.g_sum, 0) as g_sum,
        coalesce(ideal_summaries.num_positive, 0) as num_positive,
        coalesce(ideal_summaries.ideal_dcg, 0) as ideal_dcg,
        coalesce(ideal_summaries.ideal_gain, 0) as ideal_gain,
        coalesce(ideal_summaries.boundaries, []) as boundaries,
        coalesce(ideal_cutoffs.ideal_dcg, 0) as ideal_dcg_at_cutoff,
        coalesce(judged_lists.judged, []) as judged,
        coalesce(rbp_powers.powers, []) as rank_weights
    from pairs
    cross join measures
    left join rbp_powers on measures.kind = 'RBP' and measures.p = rbp_powers.p
    left join topics
        on pairs.topic_id = topics.topic_id and coalesce(measures.rel, 1) = topics.rel
    left join ranked_summaries
        on
            pairs.run_id = ranked_summaries.run_id
            and pairs.topic_id = ranked_summaries.topic_id
            and measures.profile = ranked_summaries.profile
    left join ranked_walks
        on
            pairs.run_id = ranked_walks.run_id
            and pairs.topic_id = ranked_walks.topic_id
            and measures.profile = ranked_walks.profile
    left join ideal_summaries
        on pairs.topic_id = ideal_summaries.topic_id and measures.profile = ideal_summaries.profile
    left join ideal_cutoffs
        on
            pairs.topic_id = ideal_cutoffs.topic_id
            and measures.profile = ideal_cutoffs.profile
            and measures.cutoff = ideal_cutoffs.cutoff
    left join judged_lists
        on pairs.run_id = judged_lists.run_id and pairs.topic_id = judged_lists.topic_id
    left join topic_gain_maxima
        on pairs.topic_id = topic_gain_maxima.topic_id and measures.profile = topic_gain_maxima.profile
    left join gain_maxima
        on pairs.topic_id = gain_maxima.topic_id and measures.profile = gain_maxima.profile
),

measure_sums as (
    select
        *,
        case
            when kind in ('nDCG', 'DCG') and cutoff is not null
                then coalesce(
                    list_sum(
                        list_transform(
                            list_filter(discounted_gains, lambda d: d.rank <= cutoff),
                            lambda d: d.discounted_gain
                        )
                    ),
                    0
                )
        end as dcg_at_cutoff,
        case
            when kind = 'nDCGRel' and num_positive > 0
                then ndcg_at_positive_sum + (num_positive - positive_retrieved) * dcg / ideal_dcg
        end as ndcg_rel_sum,
        case
            when kind = 'RnDCG'
                then coalesce(
                    list_sum(
                        list_transform(
                            boundaries,
                            lambda b: coalesce(
                                list_sum(
                                    list_transform(
                                        list_filter(
                                            discounted_gains, lambda d: d.rank <= b.ideal_rank
                                        ),
                                        lambda d: d.discounted_gain
                                    )
                                ),
                                0
                            ) / b.ideal_dcg
                        )
                    ),
                    0
                )
                + case
                    when num_positive > 0 and num_ret >= num_positive + 2 then dcg / ideal_dcg
                    else 0
                end
        end as rndcg_sum,
        case
            when kind = 'RnDCG'
                then len(boundaries) + (num_positive > 0 and num_ret >= num_positive + 2)::integer
        end as rndcg_points,
        case
            when kind = 'BinG'
                then list_transform(
                    list_filter(judged, lambda d: d.level >= rel),
                    lambda d, i: 1 / log2(2 + d.rank - i)
                )
        end as bing_terms,
        case
            when kind = 'RBP' and rel is not null
                then coalesce(
                    list_sum(
                        list_transform(
                            list_filter(judged, lambda d: d.rank <= coalesce(cutoff, d.rank)),
                            lambda d: (d.level >= rel)::integer * rank_weights[d.rank]
                        )
                    ),
                    0
                )
            when kind = 'RBP'
                then coalesce(
                    list_sum(
                        list_transform(
                            list_filter(
                                discounted_gains, lambda d: d.rank <= coalesce(cutoff, d.rank)
                            ),
                            lambda d: case
                                when gain_norm = 'trec_eval' and max_judged_gain > 1
                                    then d.gain / max_judged_gain
                                when gain_norm = 'gmax'
                                    then case when max_gain > 0 then d.gain / max_gain else 0 end
                                else d.gain
                            end * rank_weights[d.rank]
                        )
                    ),
                    0
                )
        end as rbp_sum
    from measure_inputs
),

scores as (
    select
        run_id,
        topic_id,
        measure,
        case kind
            when 'nDCG'
                then case
                    when cutoff is null
                        then case when ideal_dcg > 0 then dcg / ideal_dcg else 0 end
                    when ideal_dcg_at_cutoff > 0 then dcg_at_cutoff / ideal_dcg_at_cutoff
                    else 0
                end
            when 'DCG' then case when cutoff is null then dcg else dcg_at_cutoff end
            when 'IdealDCG' then case when cutoff is null then ideal_dcg else ideal_dcg_at_cutoff end
            when 'nDCGRel'
                then case when ndcg_rel_sum > 0 then ndcg_rel_sum / num_positive else 0 end
            when 'RnDCG'
                then case
                    when num_rel = 0 then 0
                    when rndcg_points > 0 then rndcg_sum / rndcg_points
                    else zero_by_zero()
                end
            when 'BinG'
                then case when len(bing_terms) > 0 then list_sum(bing_terms) / num_rel else 0 end
            when 'G' then case when ideal_gain > 0 then g_sum / ideal_gain else 0 end
            when 'RBP' then (1 - p) * rbp_sum
            else error('metric_dcg: no formula for measure kind ' || kind)
        end::double as value
    from measure_sums
)

select * from scores
