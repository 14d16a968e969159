-- reads: staged_files
-- produces: staged_file_fits (file_index, <one boolean per staged column>)
-- grain: file_index
-- params: none
-- staged_file_fits: whether each file staged by the fast path holds exactly what the general
-- path would read: no line is a '#' comment (the general path skips it) and no field is null (an
-- empty field, which the general path's whitespace split would merge away, or a value that
-- run_fast_rows.sql or qrels_fast_rows.sql refuses, for the general path to name). One row per
-- file: file_index, then one boolean per staged column; the file fits when all are true.
-- Reads: staged_files(file_index, then the staged columns, topic_id among them).
select
    file_index,
    count(*) filter (where topic_id like '#%') = 0
    and count(columns(* exclude (file_index))) = count(*)
from staged_files
group by file_index
