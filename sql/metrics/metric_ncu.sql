-- reads: evaluation_gains, evaluation_pairs, evaluation_relevant_ranks, evaluation_topics,
--        requested_measures
-- produces: metric_ncu (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_ncu: normalised cumulative utility per (run_id, topic_id, measure): NCU(stop, util)
-- and NCU(stop=rb)@l.
--        requested_measures(measure, kind, stop, util, gamma, u, beta, gain, cutoff);
--        macro blended_ratio.
-- Reference: Sakai & Robertson, EVIA 2008 (NCU); NTCIREVAL 190111 (T. Sakai), ntcir_eval.c
-- eval_compute (NCUgu,P, NCUgu,BR, NCUrb,P, NCUrb,BR) and its 2020 version (NCUrb,IE,
-- NCUrb,*@l); docs/adhoc-measures.md section 3.2.
-- Notation (docs/adhoc-measures.md sections 0 and 3): R documents at level >= 1, R_x at level x;
-- C(r) documents at level >= 1 in the top r; g(r) the gain of rank r under the gain profile
-- (0 below level 1 and for unjudged documents), cg(r) its running sum, cg*(r) the ideal list's
-- (cg*(R) beyond R); BR(r) = (beta cg(r) + C(r))/(beta cg*(r) + r).
--   NCU = sum over r with g(r) > 0 of U(r) S(r), divided by D, where
--   U(r): util P  C(r)/r;  BR  BR(r);  IE  u^r
--   S(r), D: stop gu  S = g(r) (NTCIREVAL's stop values default to the gains), D = sum_x R_x g_x;
--            stop rb  S = gamma^(C(r) - 1), D = sum over k = 1..R of gamma^(k - 1)
--   NCU(stop=rb)@l: the sum over r <= l, divided by min(l, R) instead of D (2020), so a perfect
--   list scores sum over k <= m of gamma^(k - 1)/m with m = min(l, R)
-- NTCIREVAL has no graded-uniform NCU with util IE nor at a cutoff: those raise an error. Values
-- are 0 when R = 0 (NTCIREVAL prints nothing) or D = 0. Sums run in rank order (level order for
-- D with stop gu), as the C loops add; cg*(r) is a window sum, exact for integer-valued gains.
with requested as (
    select
        measure,
        kind,
        stop,
        util,
        gamma,
        u,
        beta,
        gain as profile,
        cutoff
    from requested_measures
),

variants as (
    select distinct
        profile,
        beta
    from requested
),

topics as (
    select
        topic_id,
        num_rel
    from evaluation_topics
    where rel = 1
),

level_gains as (
    select
        profile,
        topic_id,
        level,
        gain,
        judgments
    from evaluation_gains
    where level >= 1 and profile in (select profile from variants)
),

-- the graded-uniform normaliser sum_x R_x g_x, levels ascending as NTCIREVAL adds them
graded_totals as (
    select
        profile,
        topic_id,
        sum(judgments * gain order by level) as stop_total
    from level_gains
    group by profile, topic_id
),

-- the retrieved documents with a positive gain and their BR(r), one list per (profile, beta)
relevant_lists as (
    select
        variants.profile,
        variants.beta,
        relevant.run_id,
        relevant.topic_id,
        list(
            {
                'rank': relevant.rank,
                'gain': relevant.gain,
                'relevant_so_far': relevant.relevant_so_far,
                'blended_ratio': blended_ratio(
                    variants.beta, relevant.gain_so_far, relevant.relevant_so_far,
                    relevant.ideal_gain_so_far, relevant.rank
                )
            }
            order by relevant.rank
        ) filter (where relevant.gain > 0) as documents
    from evaluation_relevant_ranks as relevant
    inner join variants on relevant.profile = variants.profile
    group by variants.profile, variants.beta, relevant.run_id, relevant.topic_id
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested.measure,
        requested.stop,
        requested.util,
        requested.gamma,
        requested.u,
        requested.cutoff,
        topics.num_rel,
        coalesce(graded_totals.stop_total, 0) as stop_total,
        coalesce(relevant_lists.documents, []) as documents
    from evaluation_pairs
    cross join requested
    inner join topics on evaluation_pairs.topic_id = topics.topic_id
    left join graded_totals
        on requested.profile = graded_totals.profile and evaluation_pairs.topic_id = graded_totals.topic_id
    left join relevant_lists
        on
            evaluation_pairs.run_id = relevant_lists.run_id
            and evaluation_pairs.topic_id = relevant_lists.topic_id
            and requested.profile = relevant_lists.profile
            and requested.beta is not distinct from relevant_lists.beta
),

-- U(r) S(r) of every document that adds to the sum, in rank order
measure_terms as (
    select
        *,
        list_transform(
            list_filter(documents, lambda document: cutoff is null or document.rank <= cutoff),
            lambda document: case util
                when 'P' then document.relevant_so_far::double / document.rank::double
                when 'BR' then document.blended_ratio
                else pow(u, document.rank)
            end
            * case stop
                when 'gu' then document.gain
                else pow(gamma, document.relevant_so_far - 1)
            end
        ) as terms,
        case
            when stop = 'gu' then stop_total
            when cutoff is not null then least(cutoff, num_rel)::double
            else list_reduce(
                list_transform(range(num_rel::bigint), lambda k: pow(gamma, k)),
                lambda total, term: total + term,
                0.0::double
            )
        end as normaliser
    from measure_inputs
)

select
    run_id,
    topic_id,
    measure,
    case
        when num_rel = 0 or normaliser = 0 then 0.0
        else list_reduce(terms, lambda total, term: total + term, 0.0::double) / normaliser
    end::double as value
from measure_terms
