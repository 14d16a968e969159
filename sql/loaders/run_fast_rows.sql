-- run_fast_rows: the lines of a run file read by the fast path, with rank and score typed by the
-- rules of run_rows.sql (the general path; tests/loaders/test_read_paths.py holds them equal):
-- a rank is an integer, a score a plain decimal number read as the nearest double (as C strtod
-- reads it: no '1_000', hex, inf or nan, and finite). A value that breaks a rule is null, and
-- the file then takes the general path, which names the line.
-- Reads: file_fields(topic_id, iter, doc_id, rank_text, score_text, run_tag) (fast_file_fields.sql).
-- Reference: formats.md section 3.1.
select
    topic_id,
    iter,
    doc_id,
    run_tag,
    case
        when regexp_full_match(rank_text, '[+-]?[0-9]+') then try_cast(rank_text as bigint)
    end as rank_given,
    case
        when
            regexp_full_match(score_text, '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
            and isfinite(try_cast(score_text as double))
            then try_cast(score_text as double)
    end as score
from file_fields
