-- reads: evaluation_pairs, evaluation_ranks, evaluation_topics, requested_measures
-- produces: metric_average_precision (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_average_precision: rank-of-relevant measures per (run_id, topic_id, measure):
-- AP and AP@k, GMAP (per topic = AP), RR and RR@k, IPrec@x, IPrecAvg(points), infAP, Bpref,
-- GMBpref (per topic = Bpref), YAAP. Geometric means are applied by sql/evaluation/means.sql.
--        requested_measures(measure, kind, rel, cutoff, recall, points).
-- Notation (docs/adhoc-measures.md section 0): rho_j rank of the j-th relevant document retrieved,
-- C(L) relevant retrieved, R relevant, N judged non-relevant (0 <= level < rel).
-- Grain of the work: one list per (run_id, topic_id, rel), the list's pooled documents in rank
-- order (one ordered aggregate: the only sort), from which list functions read the relevant
-- documents: rho_j, j (its place in the list of relevant ones), and the judged and pooled
-- documents above it (its place in the list of judged ones, of pooled ones); each requested
-- measure then reads its list. Sums add the terms one by one in rank order, as the C loops do.
-- Reference: trec_eval 10.0 (NIST) m_map.c, m_gm_map.c, m_map_cut.c (AP@k divides by R),
-- m_recip_rank.c, m_iprec_at_recall.c and m_11pt_avg.c (cutoff lround(x*R), round half away
-- from zero; interpolated precision max_{k >= rho_c} P@k, rho_0 = 1; 0 when lround(x*R) > C(L)),
-- m_infap.c (INFAP_EPSILON = 1e-5; Yilmaz & Aslam, CIKM 2006), m_bpref.c and m_gm_bpref.c
-- (Buckley & Voorhees, SIGIR 2004), form_res_rels.c (-1 unpooled, -2 pooled but unjudged).
-- m_yaap.c: YAAP = ln((1 + S)/(1 + R - S)), S the sum of precisions at relevant ranks (= AP * R)
-- (Robertson, ECIR 2012); a topic the run lacks keeps trec_eval's initial 0 (-c).
-- RR@k follows ir_measures (terrierteam): 1/rho_1 if rho_1 <= k, else 0.
-- IPrecAvg averages IPrec over its comma-separated points; trec_eval 11pt_avg gives the same
-- value when the points are listed in increasing order (it does not sort them).
with requested as (
    select
        measure,
        kind,
        rel,
        cutoff,
        -- recall points, largest first: the order in which 11pt_avg adds its terms
        case kind
            when 'IPrec' then [recall::double]
            when 'IPrecAvg'
                then list_reverse_sort(
                    list_transform(string_split(points, ','), lambda point: trim(point)::double)
                )
        end as recall_points
    from requested_measures
),

thresholds as (
    select distinct rel
    from requested
),

pairs as (
    select
        run_id,
        topic_id,
        num_ret,
        in_run,
        empty_list
    from evaluation_pairs
),

topic_judgments as (
    select
        topic_id,
        rel,
        num_rel,
        num_nonrel
    from evaluation_topics
),

-- the pooled documents of each list under each threshold in rank order, each one number:
-- 4 * rank + its judgment (2 relevant, level >= rel; 1 judged non-relevant, 0 <= level < rel;
-- 0 pooled but unjudged), so that the ordered aggregate sorts the values it collects (ranks are
-- distinct within a list)
pooled_lists as (
    select
        run_id,
        topic_id,
        rel,
        list(entry order by entry) as entries
    from (
        select
            evaluation_ranks.run_id,
            evaluation_ranks.topic_id,
            thresholds.rel,
            4 * evaluation_ranks.rank
            + case
                when evaluation_ranks.level >= thresholds.rel then 2
                when evaluation_ranks.level >= 0 then 1
                else 0
            end as entry
        from evaluation_ranks
        cross join thresholds
    )
    group by run_id, topic_id, rel
),

-- the j-th relevant document of a list: its rank rho_j (ranks[j]), its place among the judged
-- documents (judged_places[j]: the j - 1 relevant and the judged non-relevant ones above it, and
-- itself) and among the pooled documents (pooled_places[j]: the judged and the pooled but
-- unjudged ones above it, and itself)
relevant_places as (
    select
        run_id,
        topic_id,
        rel,
        list_transform(list_filter(entries, lambda entry: entry % 4 = 2), lambda entry: entry // 4) as ranks,
        list_filter(
            list_transform(
                list_filter(entries, lambda entry: entry % 4 > 0),
                lambda entry, place: case when entry % 4 = 2 then place end
            ),
            lambda place: place is not null
        ) as judged_places,
        list_filter(
            list_transform(entries, lambda entry, place: case when entry % 4 = 2 then place end),
            lambda place: place is not null
        ) as pooled_places
    from pooled_lists
),

-- every (run_id, topic_id) scored, under each threshold, with the relevant documents of its list
list_inputs as (
    select
        pairs.run_id,
        pairs.topic_id,
        topic_judgments.rel,
        pairs.num_ret,
        pairs.in_run,
        pairs.empty_list,
        topic_judgments.num_rel,
        topic_judgments.num_nonrel,
        coalesce(relevant_places.ranks, []) as ranks,
        coalesce(relevant_places.judged_places, []) as judged_places,
        coalesce(relevant_places.pooled_places, []) as pooled_places
    from pairs
    inner join topic_judgments
        on pairs.topic_id = topic_judgments.topic_id
    inner join thresholds
        on topic_judgments.rel = thresholds.rel
    left join relevant_places
        on
            pairs.run_id = relevant_places.run_id
            and pairs.topic_id = relevant_places.topic_id
            and topic_judgments.rel = relevant_places.rel
),

-- precision j/rho_j of each relevant document, and the bpref and infAP sums, their terms in rank
-- order and in the C code's order of operations: above the j-th relevant document are
-- judged_places[j] - j judged non-relevant documents (m_bpref.c nonrel_so_far), judged_places[j] - 1
-- judged ones (m_infap.c rel_so_far - 1 + nonrel_so_far) and pooled_places[j] - 1 pooled ones
-- (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far)
list_values as (
    select
        run_id,
        topic_id,
        rel,
        num_ret,
        in_run,
        empty_list,
        num_rel,
        ranks,
        list_transform(ranks, lambda rank, j: j::double / rank::double) as precisions,
        list_reduce(
            list_transform(
                judged_places,
                lambda judged_place, j: case
                    when judged_place - j > 0
                        then 1.0::double
                        - least(judged_place - j, num_rel)::double / least(num_nonrel, num_rel)::double
                    else 1.0::double
                end
            ),
            lambda total, term: total + term,
            0.0::double
        ) as bpref_sum,
        list_reduce(
            list_transform(
                pooled_places,
                lambda pooled_place, j: case
                    when ranks[j] = 1 then 1.0::double
                    else 1.0::double / ranks[j]::double
                        + ((ranks[j] - 1)::double / ranks[j]::double)
                        * ((pooled_place - 1)::double / (ranks[j] - 1)::double)
                        * (((j - 1)::double + 1e-5::double) / ((judged_places[j] - 1)::double + 2e-5::double))
                end
            ),
            lambda total, term: total + term,
            0.0::double
        ) as infap_sum
    from list_inputs
),

measure_inputs as (
    select
        list_values.*,
        requested.measure,
        requested.kind,
        requested.cutoff,
        requested.recall_points
    from list_values
    inner join requested
        on list_values.rel = requested.rel
),

-- AP@k: the precisions of the relevant documents within the cutoff, summed in rank order
precision_sums as (
    select
        *,
        case
            when kind in ('AP', 'GMAP', 'YAAP')
                then list_reduce(
                    list_slice(
                        precisions,
                        1,
                        case
                            when cutoff is null then len(ranks)
                            else len(list_filter(ranks, lambda r: r <= cutoff))
                        end
                    ),
                    lambda total, term: total + term,
                    0.0::double
                )
        end as precision_sum
    from measure_inputs
),

-- IPrec at each recall point x: c = lround(x*R); 0 if c > C(L); the interpolated precision
-- at the c-th relevant document (the first when c = 0), the largest precision j/rho_j for j >= c;
-- 0 when nothing relevant is retrieved; undefined when c = 0 and the list is empty
-- (m_iprec_at_recall.c starts from the precision num_rel_ret / num_ret = 0/0)
interpolated_at_points as (
    select
        *,
        list_transform(
            recall_points,
            lambda point: case
                when empty_list and round(point * num_rel) = 0 then zero_by_zero()
                when len(ranks) = 0 or round(point * num_rel) > len(ranks) then 0.0::double
                else list_max(
                    list_slice(precisions, greatest(round(point * num_rel), 1)::bigint, len(precisions))
                )
            end
        ) as point_values
    from precision_sums
)

select
    run_id,
    topic_id,
    measure,
    case kind
        when 'AP' then case when num_rel > 0 then precision_sum / num_rel::double else 0 end
        when 'GMAP' then case when num_rel > 0 then precision_sum / num_rel::double else 0 end
        when 'RR'
            then case
                when len(ranks) > 0 and (cutoff is null or ranks[1] <= cutoff)
                    then 1.0::double / ranks[1]::double
                else 0
            end
        when 'IPrec' then point_values[1]
        when 'IPrecAvg'
            then list_reduce(point_values, lambda total, term: total + term, 0.0::double)
            / len(point_values)::double
        when 'infAP' then case when num_rel > 0 then infap_sum / num_rel::double else infap_sum end
        when 'Bpref' then case when num_rel > 0 then bpref_sum / num_rel::double else bpref_sum end
        when 'GMBpref' then case when num_rel > 0 then bpref_sum / num_rel::double else bpref_sum end
        when 'YAAP'
            then case
                when in_run then ln((1.0 + precision_sum) / (1.0 + num_rel::double - precision_sum))
                else 0
            end
        else error('metric_average_precision: no formula for measure kind ' || kind)
    end::double as value
from interpolated_at_points
