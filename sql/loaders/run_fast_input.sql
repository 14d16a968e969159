-- reads: run_file_starts, staged_run_files
-- produces: run_fast_input (file_index, line_number, field_count, topic_id, doc_id, rank_text,
--           score_text, run_tag, rank_given, score)
-- grain: file_index, line_number
-- params: none
-- run_fast_input: the run files of a load staged by the fast path, each line with its file and
-- line number, in the shape run_batch gives the checks and the insert (run_summary,
-- run_problems, run_insert). Every line has 6 fields and typed values (staged_file_fits.sql).
-- Reads: staged_run_files(file_index, topic_id, iter, doc_id, run_tag, rank_given, score), the rows
-- of run_fast_rows.sql, each file's lines together in file order; run_file_starts(file_index,
-- first_row), the row id of each file's first line, a row for every input of the load (file_index
-- 0, 1, ...). It is read as one list, not joined: a join would not keep the rows in their order,
-- which run_insert.sql's streamed check of the file's order reads.
select
    staged_run_files.file_index,
    staged_run_files.rowid + 1
        - (select list(first_row order by file_index) from run_file_starts)[staged_run_files.file_index + 1]
        as line_number,
    6 as field_count,
    staged_run_files.topic_id,
    staged_run_files.doc_id,
    null::varchar as rank_text,
    null::varchar as score_text,
    staged_run_files.run_tag,
    staged_run_files.rank_given,
    staged_run_files.score
from staged_run_files
