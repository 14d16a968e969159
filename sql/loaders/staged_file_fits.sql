-- staged_file_fits: whether a file staged by the fast path holds exactly what the general path
-- would read: no line is a '#' comment (the general path skips it) and no field is null (an
-- empty field, which the general path's whitespace split would merge away, or a value that
-- run_fast_rows.sql or qrels_fast_rows.sql refuses, for the general path to name). One boolean
-- per staged column; the file fits when all are true.
-- Reads: staged_file(line_number, then the staged columns, topic_id among them).
select
    count(*) filter (where topic_id like '#%') = 0
    and count(columns(* exclude (line_number))) = count(*)
from staged_file
