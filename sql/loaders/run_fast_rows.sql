-- reads: file_fields
-- produces: staged_run_files (file_index, topic_id, has_iter, doc_id, run_tag, rank_given, score)
-- grain: file_index, one row per line
-- params: none
-- run_fast_rows: the lines of a run file read by the fast path, with rank and score typed by the
-- rules run_rows.sql (the general path) uses, sql/loaders/macros.sql: a rank is an integer, a
-- score a finite decimal number. A value that breaks a rule is null, and the file then takes
-- the general path, which names the line. The iteration field is not stored: has_iter only
-- tells that it is there (null when the field is empty, for staged_file_fits.sql).
-- Reads: file_fields(topic_id, iter, doc_id, rank_text, score_text, run_tag) (fast_file_fields.sql).
-- Reference: docs/input-files.md section 3.1.
select
    file_index,
    topic_id,
    nullif(iter is not null, false) as has_iter,
    doc_id,
    run_tag,
    integer_value(rank_text) as rank_given,
    finite_decimal_value(score_text) as score
from file_fields
