-- run_rows: one row per run line: topic, document, rank as given and score, typed (null if bad).
-- Reads: input_fields(line_number, is_blank, fields).
-- Layout: <topic> <iter> <docno> <rank> <score> <run_tag> [ignored...] (TREC run, 6+ fields);
-- iter and the fields after the tag are not stored.
-- Scores are decimal numbers (as C strtod reads them: no '1_000', hex, inf or nan), parsed to
-- the nearest double (DuckDB's correctly rounded cast gives what strtod gives).
-- Reference: formats.md section 3.1.
select
    line_number,
    len(fields) as field_count,
    fields[1] as topic_id,
    fields[3] as doc_id,
    fields[4] as rank_text,
    fields[5] as score_text,
    fields[6] as run_tag,
    case
        when regexp_full_match(fields[4], '[+-]?[0-9]+') then try_cast(fields[4] as bigint)
    end as rank_given,
    case
        when
            regexp_full_match(fields[5], '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
            and isfinite(try_cast(fields[5] as double))
            then try_cast(fields[5] as double)
    end as score
from input_fields
