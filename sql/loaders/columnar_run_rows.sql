-- reads: columnar_input
-- produces: staged_run_files (file_index, topic_id, has_iter, doc_id, run_tag, rank_given, score)
-- grain: file_index, one row per input row
-- params: $file_index
-- columnar_run_rows: the rows of a run given as columns (a Parquet file or folder, an Arrow table:
-- pyeval/loaders/columnar.py) in the shape the fast path stages a run file's lines
-- (run_fast_rows.sql), appended to staged_run_files, so that run_fast_input.sql and everything
-- after it read both alike. Identifiers are stored as text, as a file writes them (an integer
-- 42 is '42'); a score of any numeric type is the double it holds; a rank of any integer type
-- the 64-bit integer, null when it does not fit one (columnar_run_problems.sql names the row).
-- A run without a rank column has null ranks: run_insert.sql ranks it by its scores, as it
-- ranks a DataFrame without one. A run without a run tag column has null tags: the run is named
-- by its file (pyeval/loaders/runs.py).
-- Reads: columnar_input(topic_id, doc_id, score, rank_given, run_tag), the input's columns of
-- those roles by name (absent optional ones null). Parameters: $file_index (the input's position).
select
    $file_index::integer as file_index,
    topic_id::varchar as topic_id,
    true as has_iter,
    doc_id::varchar as doc_id,
    run_tag::varchar as run_tag,
    try_cast(rank_given as bigint) as rank_given,
    score::double as score
from columnar_input
