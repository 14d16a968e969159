-- qrels_fast_rows: the lines of a TREC qrels file read by the fast path, with the level typed by
-- the rule of qrels_rows.sql for TREC formats (an integer with an optional sign; null otherwise,
-- and the file then takes the general path, which names the line or finds NTCIR L<k> levels).
-- Reads: file_fields(topic_id, iter, doc_id, level_text) (fast_file_fields.sql).
-- Reference: formats.md sections 2 (TREC) and 5 (TREC diversity).
select
    topic_id,
    iter,
    doc_id,
    case
        when regexp_full_match(level_text, '[+-]?[0-9]+') then try_cast(level_text as integer)
    end as level
from file_fields
