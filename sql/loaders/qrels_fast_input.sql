-- reads: staged_file
-- produces: qrels_input (line_number, is_blank, field_count, topic_id, intent_id, doc_id,
--           level_text, level)
-- grain: line_number
-- params: $intent_field
-- qrels_fast_input: a TREC qrels file staged by the fast path in the shape of qrels_rows.sql,
-- for the checks and the insert both paths share (qrels_problems, qrels_insert).
-- Reads: staged_file(line_number, topic_id, iter, doc_id, level), the rows of
-- qrels_fast_rows.sql: 4 fields per line, typed (staged_file_fits.sql).
-- Parameters: $intent_field (2: TREC diversity, the second field is the subtopic; 0: ad hoc,
--   intent_id is '').
select
    line_number,
    false as is_blank,
    4 as field_count,
    topic_id,
    case when $intent_field = 2 then iter else '' end as intent_id,
    doc_id,
    null::varchar as level_text,
    level
from staged_file
