-- reads: run_entries
-- produces: run_parquet_rows (query_id, doc_id, score, rank, run_tag)
-- grain: query_id, doc_id
-- params: $campaign_id, $run_id, $run_tag
-- run_parquet_rows: the rows of a stored run as the Parquet file pyeval export-run --format parquet
-- writes (pyeval/fusion/store.py export_run_parquet), in file order (file_position): the columns
-- the run loader reads by these names (pyeval/loaders/columnar.py RUN_COLUMNS), the rank as
-- given, the score the stored double, the tag $run_tag (the run's name, as the TREC file of
-- sql/fusion/run_file_lines.sql carries it). Loading the file stores the run's rank_given, score
-- and trec_rank again, and its file order.
select
    topic_id as query_id,
    doc_id,
    score,
    rank_given as rank,
    $run_tag::varchar as run_tag
from run_entries
where campaign_id = $campaign_id and run_id = $run_id
order by file_position
