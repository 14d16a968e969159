-- reads: run_input
-- produces: run_general_rows (file_index, line_number, field_count, topic_id, doc_id, rank_text,
--           score_text, run_tag, rank_given, score)
-- grain: file_index, line_number
-- params: $file_index, $ranks_given
-- run_general_rows: the lines of one run read by the general path (run_rows.sql, checked by
-- run_problems.sql), in the shape of run_fast_input.sql, appended to the load's
-- run_general_rows table. Reads: run_input. Parameters: $file_index (the input's position);
-- $ranks_given: false for a DataFrame without a rank column, whose placeholder ranks are stored
-- as null, so that run_insert.sql ranks it by its scores as it ranks a dict of the Python API.
select
    $file_index::integer as file_index,
    line_number,
    field_count,
    topic_id,
    doc_id,
    rank_text,
    score_text,
    run_tag,
    case when $ranks_given then rank_given end as rank_given,
    score
from run_input
