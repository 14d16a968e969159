-- split_fields: one row per data line of an input, its fields split on the separator.
-- Reads: input_lines(line_number, line), registered by pyeval.loaders.
-- Parameters:
--   $separator  regular expression of a field separator ('[ \t]+', or ';' for NTCIR files)
--   $comments   true: a line whose first non-blank character is '#' is a comment (TREC rule)
--   $skip_blank true: blank lines are skipped (runs); false: they stay, to be reported (qrels)
-- Reference: shared/reference/formats.md section 1 (general parsing rules).
with trimmed as (
    select
        line_number,
        trim(line, e' \t') as line
    from input_lines
)

select
    line_number,
    line = '' as is_blank,
    case when line = '' then [] else string_split_regex(line, $separator) end as fields
from trimmed
where
    not ($comments and starts_with(line, '#'))
    and not ($skip_blank and line = '')
