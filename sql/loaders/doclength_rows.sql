-- reads: input_fields
-- produces: doclength_input (line_number, field_count, doc_id, length_text, length)
-- grain: line_number
-- params: none
-- doclength_rows: one row per document-lengths line: docno and length in characters.
-- Reads: input_fields(line_number, is_blank, fields).
-- Layout: <docno> <length> ('#' comment lines allowed). Reference: docs/input-files.md section 7.
select
    line_number,
    len(fields) as field_count,
    fields[1] as doc_id,
    fields[2] as length_text,
    case when regexp_full_match(fields[2], '\+?[0-9]+') then try_cast(fields[2] as bigint) end
        as length
from input_fields
