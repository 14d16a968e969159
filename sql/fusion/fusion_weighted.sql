-- reads: fusion_entries, fusion_point_weights
-- produces: fusion_weighted (point_id, input_position, topic_id, doc_id, topic_key, doc_key, rank, score, listed, candidates)
-- grain: point_id, input_position, topic_id, doc_id
-- params: $norm_stage
-- fusion_weighted: the scores a fusion normalises. $norm_stage 'before' (ranx, the default):
-- the scores as given, once for every point of the recipe (point_id 0), weighted after the
-- normalisation (fusion_scores); 'after': one copy per point (fusion_point_weights: point_id,
-- input_position, weight), each score multiplied by the point's weight of its input, normalised
-- afterwards (a positive weight then cancels under min-max, max, sum and z-score: anserini
-- issue 3052's question, docs/fusion.md).
select
    0 as point_id,
    input_position,
    topic_id,
    doc_id,
    topic_key,
    doc_key,
    rank,
    score,
    listed,
    candidates
from fusion_entries
where $norm_stage = 'before'
union all
select
    fusion_point_weights.point_id,
    fusion_entries.input_position,
    fusion_entries.topic_id,
    fusion_entries.doc_id,
    fusion_entries.topic_key,
    fusion_entries.doc_key,
    fusion_entries.rank,
    fusion_point_weights.weight * fusion_entries.score as score,
    fusion_entries.listed,
    fusion_entries.candidates
from fusion_entries
inner join fusion_point_weights on fusion_entries.input_position = fusion_point_weights.input_position
where $norm_stage = 'after'
