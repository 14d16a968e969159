-- reads: fusion_weighted
-- produces: fusion_normalised (point_id, input_position, topic_id, doc_id, topic_key, doc_key, rank, value, listed, candidates)
-- grain: point_id, input_position, topic_id, doc_id
-- params: $norm
-- fusion_normalised: each input's scores normalised per topic (over the input's list after the
-- depth cut) by $norm, as ranx 0.3.21 normalises (ranx/normalization/*.py), 1e-9 guards included:
--   'none'    the score
--   'min-max' (s - min) / max(max - min, 1e-9)
--   'min-max-inverted' (max - s) / max(max - min, 1e-9) (for inputs whose lower score is better)
--   'max'     s / max(max, 1e-9)
--   'sum'     (s - min) / max(sum - min * n, 1e-9), the sum taken in rank order
--   'zmuv'    (s - mean) / max(population standard deviation, 1e-9) (z-score)
--   'rank'    1 - (rank - 1) / n
--   'borda'   1 - (rank - 1) / c, c the topic's candidates (ranx borda_norm; a document the input did
--             not retrieve gets 0.5 - (n - 1) / (2c) in fusion_scores, $absent 'shared')
-- n: the list's length. Rank-based methods (fusion_scores) read the rank, not the value.
with lists as (
    select
        point_id,
        input_position,
        topic_id,
        min(score) as lowest,
        max(score) as highest,
        sum(score order by rank) as total,
        avg(score) as mean,
        stddev_pop(score) as spread
    from fusion_weighted
    group by point_id, input_position, topic_id
)

select
    fusion_weighted.point_id,
    fusion_weighted.input_position,
    fusion_weighted.topic_id,
    fusion_weighted.doc_id,
    fusion_weighted.topic_key,
    fusion_weighted.doc_key,
    fusion_weighted.rank,
    case $norm
        when 'none' then fusion_weighted.score
        when 'min-max' then (fusion_weighted.score - lists.lowest) / greatest(lists.highest - lists.lowest, 1e-9)
        when 'min-max-inverted' then (lists.highest - fusion_weighted.score) / greatest(lists.highest - lists.lowest, 1e-9)
        when 'max' then fusion_weighted.score / greatest(lists.highest, 1e-9)
        when 'sum' then
            (fusion_weighted.score - lists.lowest) / greatest(lists.total - lists.lowest * fusion_weighted.listed, 1e-9)
        when 'zmuv' then (fusion_weighted.score - lists.mean) / greatest(lists.spread, 1e-9)
        when 'rank' then 1 - (fusion_weighted.rank - 1) / fusion_weighted.listed
        when 'borda' then 1 - (fusion_weighted.rank - 1) / fusion_weighted.candidates
    end as value,
    fusion_weighted.listed,
    fusion_weighted.candidates
from fusion_weighted
inner join lists
    on fusion_weighted.point_id = lists.point_id
    and fusion_weighted.input_position = lists.input_position
    and fusion_weighted.topic_id = lists.topic_id
