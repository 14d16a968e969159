-- reads: fusion_normalised, fusion_point_weights, fusion_points
-- produces: fusion_scores (point_id, topic_id, doc_id, score, rank)
-- grain: point_id, topic_id, rank
-- params: $method, $norm_stage, $absent, $ordered_sum, $output_depth, $tie_order, $gamma, $sigma
-- fusion_scores: the fused list of every point of a recipe (fusion_points: point_id, k, p;
-- fusion_point_weights: point_id, input_position, weight), ranked and cut at $output_depth.
-- Each input gives a document a contribution (r: its rank in the input, from 1; w: the
-- point's weight of the input; v: the normalised value):
--   score methods (combsum, wsum, combmnz, combgmnz, combanz, combmax, combmin, combmed): w * v with
--     $norm_stage 'before', v itself with 'after' (the weight was applied before normalising)
--   rrf w / (k + r) (Cormack, Clarke & Buettcher 2009); isr, log-isr, logn-isr w / r^2 (Mourao
--     et al. 2015); borda w * (c - r + 1), c the topic's candidates (ranx bordafuse); rbp
--     w * (1 - p) p^(r - 1) (trectools rank_biased_precision_fusion)
-- A document an input did not retrieve ($absent): 'none' no contribution (ranx, trectools);
-- 'zero' a contribution of 0; 'min' the input's lowest contribution for the topic; 'shared'
-- (borda) w * (c - n + 1) / 2, n the input's list length (ranx bordafuse's unranked points), or
-- under the borda normalisation w * (0.5 - (n - 1) / (2c)) (ranx borda_norm; w only with
-- $norm_stage 'before'); a shared document counts as retrieved by the input (ranx's borda_norm
-- puts every candidate in every input).
-- The fused score over a document's contributions, summed in input order (as ranx sums, so
-- that the values agree to the last bit; $ordered_sum false, bound for at most two inputs, sums
-- without ordering: two terms add the same in either order): sum (combsum, wsum, rrf, borda, rbp); sum times the
-- number of inputs that retrieved it, h (combmnz, isr; Fox & Shaw 1994); sum times h^$gamma
-- (combgmnz; Lee 1997); sum times ln(h) (log-isr) or ln(h + $sigma) (logn-isr); the mean of the contributions (combanz); max, min, median (combmax, combmin,
-- combmed). Ranked by score descending, ties by docno descending (trec_eval's order, the
-- default) or ascending ($tie_order 'docno-asc', trectools); ranks beyond $output_depth
-- dropped (Python binds a very large number for no cut). Topics and documents are grouped and
-- ranked by their integer keys (fusion_entries), docno order being doc_key order.
with contributions as (
    select
        fusion_point_weights.point_id,
        fusion_normalised.input_position,
        fusion_normalised.topic_key,
        fusion_normalised.doc_key,
        true as is_present,
        case
            when $method in ('rrf', 'isr', 'log-isr', 'logn-isr', 'borda', 'rbp') or $norm_stage = 'before'
                then fusion_point_weights.weight
            else 1.0
        end
        * case $method
            when 'rrf' then 1.0 / (fusion_points.k + fusion_normalised.rank)
            when 'isr' then 1.0 / (fusion_normalised.rank * fusion_normalised.rank)
            when 'log-isr' then 1.0 / (fusion_normalised.rank * fusion_normalised.rank)
            when 'logn-isr' then 1.0 / (fusion_normalised.rank * fusion_normalised.rank)
            when 'borda' then fusion_normalised.candidates - fusion_normalised.rank + 1
            when 'rbp' then (1.0 - fusion_points.p) * pow(fusion_points.p, fusion_normalised.rank - 1)
            else fusion_normalised.value
        end as contribution,
        fusion_point_weights.weight,
        fusion_normalised.listed,
        fusion_normalised.candidates
    from fusion_normalised
    inner join fusion_point_weights
        on fusion_normalised.input_position = fusion_point_weights.input_position
        and (fusion_normalised.point_id = 0 or fusion_normalised.point_id = fusion_point_weights.point_id)
    inner join fusion_points on fusion_point_weights.point_id = fusion_points.point_id
),

input_lists as (
    select
        point_id,
        input_position,
        topic_key,
        min(contribution) as lowest,
        any_value(weight) as weight,
        any_value(listed) as listed,
        any_value(candidates) as candidates
    from contributions
    where $absent <> 'none'
    group by point_id, input_position, topic_key
),

topic_documents as (
    select distinct
        point_id,
        topic_key,
        doc_key
    from contributions
    where $absent <> 'none'
),

fills as (
    select
        input_lists.point_id,
        input_lists.input_position,
        input_lists.topic_key,
        topic_documents.doc_key,
        $absent = 'shared' as is_present,
        case $absent
            when 'zero' then 0.0
            when 'min' then input_lists.lowest
            when 'shared' then
                case
                    when $method = 'borda'
                        then input_lists.weight * (input_lists.candidates - input_lists.listed + 1) / 2.0
                    else (case when $norm_stage = 'before' then input_lists.weight else 1.0 end)
                        * (0.5 - (input_lists.listed - 1) / (2 * input_lists.candidates))
                end
        end as contribution
    from input_lists
    inner join topic_documents
        on input_lists.point_id = topic_documents.point_id
        and input_lists.topic_key = topic_documents.topic_key
    anti join contributions
        on input_lists.point_id = contributions.point_id
        and input_lists.input_position = contributions.input_position
        and input_lists.topic_key = contributions.topic_key
        and topic_documents.doc_key = contributions.doc_key
),

pooled as (
    select point_id, input_position, topic_key, doc_key, is_present, contribution
    from contributions
    union all
    select point_id, input_position, topic_key, doc_key, is_present, contribution
    from fills
),

fused as (
    select
        point_id,
        topic_key,
        doc_key,
        coalesce(
            sum(contribution order by input_position)
                filter (where $ordered_sum and $method not in ('combmax', 'combmin', 'combmed')),
            sum(contribution) filter (where not $ordered_sum and $method not in ('combmax', 'combmin', 'combmed'))
        ) as total,
        max(contribution) filter (where $method = 'combmax') as highest,
        min(contribution) filter (where $method = 'combmin') as lowest,
        median(contribution) filter (where $method = 'combmed') as middle,
        count(*) as contributions,
        count(*) filter (where is_present) as hits
    from pooled
    group by point_id, topic_key, doc_key
),

scored as (
    select
        point_id,
        topic_key,
        doc_key,
        case $method
            when 'combmax' then highest
            when 'combmin' then lowest
            when 'combmed' then middle
            when 'combmnz' then total * hits
            when 'isr' then total * hits
            when 'combgmnz' then total * pow(hits, $gamma)
            when 'log-isr' then total * ln(hits)
            when 'logn-isr' then total * ln(hits + $sigma)
            when 'combanz' then total / contributions
            else total
        end as score
    from fused
),

ranked as (
    select
        point_id,
        topic_key,
        doc_key,
        score,
        row_number() over (
            partition by point_id, topic_key
            order by score desc, case when $tie_order = 'docno-asc' then doc_key end asc, doc_key desc
        ) as rank
    from scored
),

documents as (
    select distinct
        topic_key,
        doc_key,
        topic_id,
        doc_id
    from fusion_normalised
)

select
    ranked.point_id,
    documents.topic_id,
    documents.doc_id,
    ranked.score,
    ranked.rank
from ranked
inner join documents on ranked.topic_key = documents.topic_key and ranked.doc_key = documents.doc_key
where ranked.rank <= $output_depth
