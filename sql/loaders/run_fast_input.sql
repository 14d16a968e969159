-- run_fast_input: a run file staged by the fast path in the shape of run_rows.sql, for the
-- checks and the insert that both paths share (run_summary, run_problems, run_insert).
-- Reads: staged_file(line_number, topic_id, iter, doc_id, run_tag, rank_given, score), the rows
-- of run_fast_rows.sql. Every line has 6 fields and typed values (staged_file_fits.sql).
select
    line_number,
    6 as field_count,
    topic_id,
    doc_id,
    null::varchar as rank_text,
    null::varchar as score_text,
    run_tag,
    rank_given,
    score
from staged_file
