-- reads: file_fields
-- produces: staged_qrels_files (file_index, topic_id, iter, doc_id, level)
-- grain: file_index, one row per line
-- params: none
-- qrels_fast_rows: the lines of a TREC qrels file read by the fast path, with the level typed by
-- the rule of qrels_rows.sql for TREC formats (integer_value, sql/loaders/macros.sql; null otherwise,
-- and the file then takes the general path, which names the line or finds NTCIR L<k> levels).
-- Reads: file_fields(topic_id, iter, doc_id, level_text) (fast_file_fields.sql).
-- Reference: docs/input-files.md sections 2 (TREC) and 5 (TREC diversity).
select
    file_index,
    topic_id,
    iter,
    doc_id,
    try_cast(integer_value(level_text) as integer) as level
from file_fields
