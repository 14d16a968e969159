-- reads: evaluation_gain_maxima, evaluation_gains, evaluation_pairs, evaluation_ranks,
--        evaluation_topics, requested_measures
-- produces: metric_condensed (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_condensed: NTCIREVAL's condensed-list measures per (run_id, topic_id, measure):
-- BprefR, BprefN, BprefRelative, RprefN, RprefRelative, RprefRelative2.
--        evaluation_gain_maxima, requested_measures(measure, kind, gain).
-- Reference: NTCIREVAL 190111 (T. Sakai), ntcir_eval.c eval_compute with -j (bpref_R, bpref_N,
-- bpref_relative, rpref_N, rpref_relative, rpref_relative2); Sakai, SIGIR 2007 ("Alternatives
-- to Bpref"); docs/adhoc-measures.md section 3.4.
-- The list is always condensed: documents without a judgment (unpooled, or pooled with a
-- negative level) are removed and ranks renumbered 1..L, whatever judged_only says (the depth
-- cut comes first, as NTCIREVAL truncates the run before labelling it).
-- Notation: r the rank in the condensed list; R documents at level >= 1, N at level 0; C(r)
-- documents at level >= 1 in the top r; n(r) = r - C(r), the judged non-relevant documents
-- above a relevant r; g(r) the gain of rank r under the gain profile (0 at level 0); cg*(R) the
-- total gain of the R documents; gmax the profile's highest gain (evaluation_gain_maxima,
-- NTCIREVAL's last -g value); pen(r) = sum over j < r with g(j) < g(r) of (g(r) - g(j))/g(r).
-- Sums run over the ranks with g(r) > 0, in rank order:
--   BprefR          (1/R) sum of 1 - min(R, n(r))/R
--   BprefN          (1/R) sum of 1 - n(r)/N
--   BprefRelative   (1/R) sum of 1 - n(r)/(r - 1); rank 1 adds 0
--   RprefN          (1/cg*(R)) sum of g(r)(1 - pen(r)/(R + N - cg*(R)/gmax))
--   RprefRelative   (1/cg*(R)) sum of g(r)(1 - pen(r)/(r - 1)); rank 1 adds 0
--   RprefRelative2  (1/cg*(R)) sum of g(r)(1 - pen(r)/r)
-- NTCIREVAL's plain bpref is trec_eval's (the Bpref measure of metric_average_precision).
-- Values are 0 when R = 0 or cg*(R) = 0. NTCIREVAL refuses -j when N = 0 ("no judged nonrel");
-- here n(r) is then 0 and n(r)/N counts as 0, as does pen(r)/(R + N - cg*(R)/gmax) when that
-- denominator is 0 (then every relevant document has gain gmax, so pen(r) = 0).
-- pen(r) is computed as the number of lower-gain documents above r less their gains over g(r)
-- (the C loop adds (g(r) - g(j))/g(r) term by term; equal up to rounding in the last bits).
with requested as (
    select
        measure,
        kind,
        gain as profile
    from requested_measures
),

profiles as (
    select distinct profile
    from requested
),

topics as (
    select
        topic_id,
        num_rel,
        num_nonrel
    from evaluation_topics
    where rel = 1
),

-- gains of the judged levels (level 0 and below gain nothing, whatever a profile says)
level_gains as (
    select
        profile,
        topic_id,
        level,
        case when level >= 1 then gain else 0.0 end as gain,
        judgments
    from evaluation_gains
    where level >= 0 and profile in (select profile from profiles)
),

ideal_totals as (
    select
        level_gains.profile,
        level_gains.topic_id,
        sum(level_gains.judgments * level_gains.gain order by level_gains.level desc) as ideal_gain,
        any_value(evaluation_gain_maxima.max_gain) as max_gain
    from level_gains
    inner join evaluation_gain_maxima
        on
            level_gains.profile = evaluation_gain_maxima.profile
            and level_gains.topic_id = evaluation_gain_maxima.topic_id
    group by level_gains.profile, level_gains.topic_id
),

condensed as (
    select
        run_id,
        topic_id,
        row_number() over (partition by run_id, topic_id order by rank) as rank,
        level
    from evaluation_ranks
    where level >= 0
),

condensed_gains as (
    select
        level_gains.profile,
        condensed.run_id,
        condensed.topic_id,
        condensed.rank,
        condensed.level,
        level_gains.gain,
        count(*) filter (where condensed.level >= 1) over (
            partition by level_gains.profile, condensed.run_id, condensed.topic_id
            order by condensed.rank
            rows between unbounded preceding and current row
        ) as relevant_so_far
    from condensed
    inner join level_gains
        on condensed.topic_id = level_gains.topic_id and condensed.level = level_gains.level
),

-- the distinct positive gains of each topic: pen(r) of a document with gain v counts the
-- documents above it with a gain below v
gain_thresholds as (
    select distinct
        profile,
        topic_id,
        gain as threshold
    from level_gains
    where gain > 0
),

penalties as (
    select
        condensed_gains.profile,
        condensed_gains.run_id,
        condensed_gains.topic_id,
        condensed_gains.rank,
        condensed_gains.gain,
        gain_thresholds.threshold,
        count(*) filter (where condensed_gains.gain < gain_thresholds.threshold) over lower_above
            as lower_above,
        coalesce(
            sum(condensed_gains.gain) filter (where condensed_gains.gain < gain_thresholds.threshold)
                over lower_above,
            0
        ) as lower_gain_above
    from condensed_gains
    inner join gain_thresholds
        on
            condensed_gains.profile = gain_thresholds.profile
            and condensed_gains.topic_id = gain_thresholds.topic_id
    window lower_above as (
        partition by
            condensed_gains.profile, condensed_gains.run_id, condensed_gains.topic_id,
            gain_thresholds.threshold
        order by condensed_gains.rank
        rows between unbounded preceding and 1 preceding
    )
),

relevant_terms as (
    select
        condensed_gains.profile,
        condensed_gains.run_id,
        condensed_gains.topic_id,
        condensed_gains.rank,
        condensed_gains.gain,
        (condensed_gains.rank - condensed_gains.relevant_so_far)::double as nonrelevant_above,
        penalties.lower_above - penalties.lower_gain_above / condensed_gains.gain as penalty
    from condensed_gains
    inner join penalties
        on
            condensed_gains.profile = penalties.profile
            and condensed_gains.run_id = penalties.run_id
            and condensed_gains.topic_id = penalties.topic_id
            and condensed_gains.rank = penalties.rank
            and condensed_gains.gain = penalties.threshold
    where condensed_gains.gain > 0
),

list_sums as (
    select
        relevant_terms.profile,
        relevant_terms.run_id,
        relevant_terms.topic_id,
        sum(
            1.0 - least(topics.num_rel, relevant_terms.nonrelevant_above) / topics.num_rel
            order by relevant_terms.rank
        ) as bpref_r_sum,
        sum(
            1.0 - case
                when topics.num_nonrel > 0 then relevant_terms.nonrelevant_above / topics.num_nonrel
                else 0.0
            end
            order by relevant_terms.rank
        ) as bpref_n_sum,
        sum(
            case
                when relevant_terms.rank > 1
                    then 1.0 - relevant_terms.nonrelevant_above / (relevant_terms.rank - 1)
                else 0.0
            end
            order by relevant_terms.rank
        ) as bpref_relative_sum,
        sum(
            relevant_terms.gain * (
                1.0 - case
                    when topics.num_rel + topics.num_nonrel - ideal_totals.ideal_gain / ideal_totals.max_gain > 0
                        then relevant_terms.penalty
                        / (topics.num_rel + topics.num_nonrel - ideal_totals.ideal_gain / ideal_totals.max_gain)
                    else 0.0
                end
            )
            order by relevant_terms.rank
        ) as rpref_n_sum,
        sum(
            relevant_terms.gain * case
                when relevant_terms.rank > 1 then 1.0 - relevant_terms.penalty / (relevant_terms.rank - 1)
                else 0.0
            end
            order by relevant_terms.rank
        ) as rpref_relative_sum,
        sum(
            relevant_terms.gain * (1.0 - relevant_terms.penalty / relevant_terms.rank)
            order by relevant_terms.rank
        ) as rpref_relative2_sum
    from relevant_terms
    inner join topics on relevant_terms.topic_id = topics.topic_id
    inner join ideal_totals
        on relevant_terms.profile = ideal_totals.profile and relevant_terms.topic_id = ideal_totals.topic_id
    group by relevant_terms.profile, relevant_terms.run_id, relevant_terms.topic_id
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested.measure,
        requested.kind,
        topics.num_rel,
        coalesce(ideal_totals.ideal_gain, 0) as ideal_gain,
        list_sums.*
    from evaluation_pairs
    cross join requested
    inner join topics on evaluation_pairs.topic_id = topics.topic_id
    left join ideal_totals
        on requested.profile = ideal_totals.profile and evaluation_pairs.topic_id = ideal_totals.topic_id
    left join list_sums
        on
            evaluation_pairs.run_id = list_sums.run_id
            and evaluation_pairs.topic_id = list_sums.topic_id
            and requested.profile = list_sums.profile
)

select
    run_id,
    topic_id,
    measure,
    case
        when num_rel = 0 or ideal_gain = 0 or bpref_r_sum is null then 0.0
        when kind = 'BprefR' then bpref_r_sum / num_rel
        when kind = 'BprefN' then bpref_n_sum / num_rel
        when kind = 'BprefRelative' then bpref_relative_sum / num_rel
        when kind = 'RprefN' then rpref_n_sum / ideal_gain
        when kind = 'RprefRelative' then rpref_relative_sum / ideal_gain
        when kind = 'RprefRelative2' then rpref_relative2_sum / ideal_gain
        else error('metric_condensed: no formula for measure kind ' || kind)
    end::double as value
from measure_inputs
