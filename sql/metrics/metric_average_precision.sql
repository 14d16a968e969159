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
-- Grain of the work: one row per relevant document retrieved and threshold (running counts,
-- precision j/rho_j and its interpolation), one list per (run_id, topic_id, rel); each requested
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
    select list(distinct rel) as rels
    from requested
),

pooled_ranks as (
    select
        run_id,
        topic_id,
        rank,
        level
    from evaluation_ranks
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

-- position of each pooled document among the pooled documents of its list, and the pooled but
-- unjudged documents up to it (both independent of the threshold)
pooled_positions as (
    select
        run_id,
        topic_id,
        rank,
        level,
        row_number() over ranks_so_far as pooled_position,
        count_if(level < 0) over ranks_so_far as unjudged_through
    from pooled_ranks
    window ranks_so_far as (
        partition by run_id, topic_id
        order by rank
        rows between unbounded preceding and current row
    )
),

-- one row per relevant document retrieved and threshold it reaches (a projection, not an
-- inequality join, which DuckDB would plan as a sort of every pooled document)
relevant_positions as (
    select
        pooled_positions.run_id,
        pooled_positions.topic_id,
        unnest(list_filter(thresholds.rels, lambda rel: rel <= pooled_positions.level)) as rel,
        pooled_positions.rank,
        pooled_positions.pooled_position,
        pooled_positions.unjudged_through
    from pooled_positions
    cross join thresholds
    where pooled_positions.level >= 0
),

-- j: the place of a relevant document among the relevant documents of its list
relevant_numbered as (
    select
        *,
        row_number() over (partition by run_id, topic_id, rel order by rank) as relevant_so_far
    from relevant_positions
),

-- the judged non-relevant (n) and pooled-unjudged (u) documents above a relevant document:
-- the pooled documents above it are the j - 1 relevant ones, n and u
relevant_counts as (
    select
        run_id,
        topic_id,
        rel,
        rank,
        relevant_so_far,
        pooled_position - relevant_so_far - unjudged_through as nonrelevant_above,
        unjudged_through as unjudged_above
    from relevant_numbered
),

-- precision j/rho_j and the bpref and infAP terms of each relevant document, written in the
-- C code's order of operations
relevant_documents as (
    select
        relevant_counts.run_id,
        relevant_counts.topic_id,
        relevant_counts.rel,
        relevant_counts.rank,
        relevant_counts.relevant_so_far::double / relevant_counts.rank::double as precision,
        case
            when relevant_counts.nonrelevant_above > 0
                then 1.0::double
                - least(relevant_counts.nonrelevant_above, topic_judgments.num_rel)::double
                / least(topic_judgments.num_nonrel, topic_judgments.num_rel)::double
            else 1.0::double
        end as bpref_term,
        case
            when relevant_counts.rank = 1 then 1.0::double
            else 1.0::double / relevant_counts.rank::double
                + ((relevant_counts.rank - 1)::double / relevant_counts.rank::double)
                * (
                    (relevant_counts.relevant_so_far - 1 + relevant_counts.nonrelevant_above
                        + relevant_counts.unjudged_above)::double
                    / (relevant_counts.rank - 1)::double
                )
                * (
                    ((relevant_counts.relevant_so_far - 1)::double + 1e-5::double)
                    / ((relevant_counts.relevant_so_far - 1 + relevant_counts.nonrelevant_above)::double
                        + 2e-5::double)
                )
        end as infap_term
    from relevant_counts
    inner join topic_judgments
        on
            relevant_counts.topic_id = topic_judgments.topic_id
            and relevant_counts.rel = topic_judgments.rel
),

-- interpolated precision at the j-th relevant document: max_{i >= j} i/rho_i
interpolated as (
    select
        *,
        max(precision) over (
            partition by run_id, topic_id, rel
            order by rank
            rows between current row and unbounded following
        ) as interpolated_precision
    from relevant_documents
),

-- the relevant documents of each list in rank order (one ordered aggregate, read field by field)
relevant_lists as (
    select
        run_id,
        topic_id,
        rel,
        list(
            {
                'rank': rank,
                'precision': precision,
                'interpolated_precision': interpolated_precision,
                'bpref_term': bpref_term,
                'infap_term': infap_term
            }
            order by rank
        ) as documents
    from interpolated
    group by run_id, topic_id, rel
),

list_summaries as (
    select
        run_id,
        topic_id,
        rel,
        list_transform(documents, lambda document: document.rank) as ranks,
        list_transform(documents, lambda document: document.precision) as precisions,
        list_transform(documents, lambda document: document.interpolated_precision)
            as interpolated_precisions,
        list_reduce(
            list_transform(documents, lambda document: document.bpref_term),
            lambda total, term: total + term,
            0.0::double
        ) as bpref_sum,
        list_reduce(
            list_transform(documents, lambda document: document.infap_term),
            lambda total, term: total + term,
            0.0::double
        ) as infap_sum
    from relevant_lists
),

measure_inputs as (
    select
        pairs.run_id,
        pairs.topic_id,
        requested.measure,
        requested.kind,
        requested.cutoff,
        requested.recall_points,
        pairs.num_ret,
        pairs.in_run,
        pairs.empty_list,
        topic_judgments.num_rel,
        coalesce(list_summaries.ranks, []) as ranks,
        coalesce(list_summaries.precisions, []) as precisions,
        coalesce(list_summaries.interpolated_precisions, []) as interpolated_precisions,
        coalesce(list_summaries.bpref_sum, 0) as bpref_sum,
        coalesce(list_summaries.infap_sum, 0) as infap_sum
    from pairs
    cross join requested
    inner join topic_judgments
        on
            pairs.topic_id = topic_judgments.topic_id
            and requested.rel = topic_judgments.rel
    left join list_summaries
        on
            pairs.run_id = list_summaries.run_id
            and pairs.topic_id = list_summaries.topic_id
            and requested.rel = list_summaries.rel
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
-- at the c-th relevant document (the first when c = 0); 0 when nothing relevant is retrieved;
-- undefined when c = 0 and the list is empty (m_iprec_at_recall.c starts from the precision
-- num_rel_ret / num_ret = 0/0)
interpolated_at_points as (
    select
        *,
        list_transform(
            recall_points,
            lambda point: case
                when empty_list and round(point * num_rel) = 0 then zero_by_zero()
                when len(ranks) = 0 or round(point * num_rel) > len(ranks) then 0.0::double
                else interpolated_precisions[greatest(round(point * num_rel), 1)::bigint]
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
