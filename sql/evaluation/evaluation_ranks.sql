-- reads: evaluation_entries
-- produces: evaluation_ranks (run_id, topic_id, rank, doc_id, score, level)
-- grain: run_id, topic_id, rank
-- params: none
-- evaluation_ranks: the pooled documents (those with a qrels line) of every ranked list of one
-- ad hoc evaluation, with their rank, the run's score and their level, as the ranked-and-cut
-- stage evaluation_entries gives them (ordering, depth cut, judged_only). Materialised once per
-- evaluation; every metric family reads it (a list's unpooled documents only occupy ranks,
-- which `rank` keeps). Ad hoc qrels judge a document once per topic, so its level is the
-- highest level of its rows. The score is read by Compat (sql/metrics/metric_compat.sql).
select
    run_id,
    topic_id,
    rank,
    doc_id,
    score,
    max_level as level
from evaluation_entries
