-- reads: fusion_scores
-- writes: run_entries
-- params: $campaign_id, $run_id
-- fused_run_insert: store the fused list of point 1 of fusion_scores as run $run_id of
-- $campaign_id. rank_given is the fused rank (with the recipe's tie order); file_position the
-- line of the run's TREC file (topics in byte order, then rank: what pyeval export-run writes
-- and what the run's sha256 is taken of); trec_rank the rank under the default ordering
-- (score descending, docno descending), as sql/loaders/run_insert.sql sets it on load.
insert into run_entries (
    campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank
)
select
    $campaign_id,
    $run_id,
    topic_id,
    doc_id,
    rank,
    score,
    row_number() over (order by topic_id, rank),
    row_number() over (partition by topic_id order by score desc, doc_id desc)
from fusion_scores
where point_id = 1
