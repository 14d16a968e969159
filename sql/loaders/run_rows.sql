-- reads: input_fields
-- produces: run_input (line_number, field_count, topic_id, doc_id, rank_text, score_text, run_tag,
--           rank_given, score)
-- grain: line_number
-- params: none
-- run_rows: one row per run line: topic, document, rank as given and score, typed (null if bad).
-- Reads: input_fields(line_number, is_blank, fields).
-- Layout: <topic> <iter> <docno> <rank> <score> <run_tag> [ignored...] (TREC run, 6+ fields);
-- iter and the fields after the tag are not stored.
-- Ranks are integers, scores finite decimal numbers (the rules of sql/loaders/macros.sql).
-- Reference: docs/input-files.md section 3.1.
select
    line_number,
    len(fields) as field_count,
    fields[1] as topic_id,
    fields[3] as doc_id,
    fields[4] as rank_text,
    fields[5] as score_text,
    fields[6] as run_tag,
    integer_value(fields[4]) as rank_given,
    finite_decimal_value(fields[5]) as score
from input_fields
