-- reads: evaluation_ideal_gains, evaluation_pairs, evaluation_relevant_ranks, evaluation_topics,
--        requested_measures
-- produces: metric_qmeasure (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_qmeasure: NTCIREVAL's blended-ratio measures per (run_id, topic_id, measure): Q and
-- Q@l, OMeasure, PMeasure, PPlus, RMeasure, APntcir@l.
--        requested_measures(measure, kind, gain, beta, truncate, cutoff); macro blended_ratio.
-- Reference: NTCIREVAL 190111 (T. Sakai), ntcir_eval.c eval_compute (RR, O-measure, P-measure,
-- P-plus, AP, Q-measure, AP@l, Q@l); Sakai, AIRS 2005 (Q-measure, R-measure); Sakai, IPSJ TOD
-- 48(SIG9) 2007 (O, P, P-plus); docs/adhoc-measures.md sections 3.1, 3.2 and 4.1.
-- Notation (docs/adhoc-measures.md section 0): R documents of the topic at level >= 1; C(r) documents
-- at level >= 1 in the top r; g(r) the gain of the document at rank r under the measure's gain
-- profile (0 below level 1, for pooled-unjudged and unpooled documents); cg(r) its running sum;
-- cg*(r) the cumulative gain of the ideal list (the R documents, gains descending), cg*(R) for
-- r > R; BR(r) = (beta cg(r) + C(r))/(beta cg*(r) + r), the blended ratio.
--   Q           (1/R) sum over r with g(r) > 0 of BR(r); Q@l: r <= l, divided by min(l, R)
--   APntcir@l   sum over r <= l with g(r) > 0 of C(r)/r, divided by min(l, R)
--   OMeasure    BR(r1), r1 the first rank with level >= 1 (whatever its gain)
--   PMeasure    BR(rp), rp the first rank of the highest level present in the list
--   PPlus       sum over r <= rp with g(r) > 0 of BR(r), divided by C(rp)
--   RMeasure    BR(R) = (beta cg(R) + C(R))/(beta cg*(R) + R)
-- Every measure is 0 when R = 0 or nothing at level >= 1 is retrieved (as NTCIREVAL prints it;
-- NTCIREVAL prints nothing for R = 0, NEV2mean counts 0). truncate=l cuts the evaluated list at
-- rank l first (after judged_only, whose ranks are renumbered; max_depth cuts before it).
-- The sums run in rank order, as the C loops add. cg*(r) is a window sum, exact for
-- integer-valued gains (other gains may differ from the C running sum in the last bit).
with requested as (
    select
        measure,
        kind,
        gain as profile,
        beta,
        truncate,
        cutoff
    from requested_measures
),

-- one ranked list per (profile, beta, truncate) a measure asks for
variants as (
    select distinct
        profile,
        beta,
        truncate
    from requested
),

topics as (
    select
        topic_id,
        num_rel
    from evaluation_topics
    where rel = 1
),

-- the retrieved documents at level >= 1 with C(r), cg(r), cg*(r) (evaluation_relevant_ranks)
-- and BR(r), one list per (profile, beta, truncate) a measure asks for
relevant_documents as (
    select
        variants.profile,
        variants.beta,
        variants.truncate,
        relevant.run_id,
        relevant.topic_id,
        relevant.rank,
        relevant.level,
        relevant.gain,
        relevant.relevant_so_far,
        relevant.gain_so_far,
        blended_ratio(
            variants.beta, relevant.gain_so_far, relevant.relevant_so_far,
            relevant.ideal_gain_so_far, relevant.rank
        ) as blended_ratio
    from evaluation_relevant_ranks as relevant
    inner join variants on relevant.profile = variants.profile
    where variants.truncate is null or relevant.rank <= variants.truncate
),

relevant_lists as (
    select
        profile,
        beta,
        truncate,
        run_id,
        topic_id,
        list(
            {
                'rank': rank,
                'level': level,
                'gain': gain,
                'relevant_so_far': relevant_so_far,
                'gain_so_far': gain_so_far,
                'blended_ratio': blended_ratio
            }
            order by rank
        ) as documents,
        max(level) as top_level
    from relevant_documents
    group by profile, beta, truncate, run_id, topic_id
),

-- cg*(R), the ideal list's whole gain
ideal_totals as (
    select
        profile,
        topic_id,
        max(ideal_gain_so_far) as ideal_gain
    from evaluation_ideal_gains
    group by profile, topic_id
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested.measure,
        requested.kind,
        requested.beta,
        requested.cutoff,
        topics.num_rel,
        coalesce(ideal_totals.ideal_gain, 0) as ideal_gain,
        coalesce(relevant_lists.documents, []) as documents,
        relevant_lists.top_level
    from evaluation_pairs
    cross join requested
    inner join topics on evaluation_pairs.topic_id = topics.topic_id
    left join relevant_lists
        on
            evaluation_pairs.run_id = relevant_lists.run_id
            and evaluation_pairs.topic_id = relevant_lists.topic_id
            and requested.profile = relevant_lists.profile
            and requested.beta is not distinct from relevant_lists.beta
            and requested.truncate is not distinct from relevant_lists.truncate
    left join ideal_totals
        on requested.profile = ideal_totals.profile and evaluation_pairs.topic_id = ideal_totals.topic_id
),

-- what each measure reads of its list: the documents that add to its sum, the document at r1
-- or rp, and (RMeasure) the last document within rank R
measure_parts as (
    select
        *,
        list_filter(
            documents,
            lambda document: document.gain > 0 and (cutoff is null or document.rank <= cutoff)
        ) as summed,
        list_filter(documents, lambda document: document.level = top_level)[1] as preferred,
        list_filter(documents, lambda document: document.rank <= num_rel)[-1] as at_num_rel,
        case when cutoff is null then num_rel else least(cutoff, num_rel) end as divisor
    from measure_inputs
)

select
    run_id,
    topic_id,
    measure,
    case
        when num_rel = 0 or len(documents) = 0 then 0.0
        when kind = 'Q'
            then list_reduce(
                list_transform(summed, lambda document: document.blended_ratio),
                lambda total, term: total + term,
                0.0::double
            ) / divisor::double
        when kind = 'APntcir'
            then list_reduce(
                list_transform(
                    summed, lambda document: document.relevant_so_far::double / document.rank::double
                ),
                lambda total, term: total + term,
                0.0::double
            ) / divisor::double
        when kind = 'OMeasure' then documents[1].blended_ratio
        when kind = 'PMeasure' then preferred.blended_ratio
        when kind = 'PPlus'
            then list_reduce(
                list_transform(
                    list_filter(
                        documents,
                        lambda document: document.gain > 0 and document.rank <= preferred.rank
                    ),
                    lambda document: document.blended_ratio
                ),
                lambda total, term: total + term,
                0.0::double
            ) / preferred.relevant_so_far::double
        when kind = 'RMeasure'
            then (beta * coalesce(at_num_rel.gain_so_far, 0) + coalesce(at_num_rel.relevant_so_far, 0))
            / (beta * ideal_gain + num_rel)
        else error('metric_qmeasure: no formula for measure kind ' || kind)
    end::double as value
from measure_parts
