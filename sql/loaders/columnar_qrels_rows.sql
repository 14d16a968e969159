-- reads: columnar_input
-- produces: staged_qrels_files (file_index, topic_id, iter, doc_id, level)
-- grain: file_index, one row per input row
-- params: $file_index
-- columnar_qrels_rows: the rows of qrels given as columns (a Parquet file or folder, an Arrow
-- table: pyeval/loaders/columnar.py) in the shape the fast path stages a TREC qrels file's
-- lines (qrels_fast_rows.sql), appended to staged_qrels_files, so that qrels_fast_input.sql and
-- everything after it read both alike. Identifiers are stored as text, as a file writes them;
-- the iteration is the TREC qrels' second field ('0' when the input has no such column: ad hoc
-- qrels); the relevance of any integer type is the 32-bit integer, null when it does not fit
-- one (columnar_qrels_problems.sql names the row).
-- Reads: columnar_input(topic_id, doc_id, level, iteration), the input's columns of those roles
-- by name. Parameters: $file_index (the input's position).
select
    $file_index::integer as file_index,
    topic_id::varchar as topic_id,
    iteration::varchar as iter,
    doc_id::varchar as doc_id,
    try_cast(level as integer) as level
from columnar_input
