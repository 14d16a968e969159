-- reads: input_fields
-- produces: qrels_format_evidence (line_number, field_count, last_field, second_field_values)
-- grain: one row
-- params: none
-- qrels_format_evidence: what tells the qrels formats apart, from the data lines.
-- Reads: input_fields. Returns the first data line's line number, field count and last field,
-- and how many distinct values the second field takes over the 4-field lines (TREC ad hoc
-- qrels carry a constant iteration there, TREC diversity qrels the subtopic).
with data_lines as (
    select line_number, fields
    from input_fields
    where not is_blank
),

first_line as (
    select line_number, len(fields) as field_count, fields[len(fields)] as last_field
    from data_lines
    order by line_number
    limit 1
)

select
    first_line.line_number,
    first_line.field_count,
    first_line.last_field,
    (select count(distinct fields[2]) from data_lines where len(fields) = 4) as second_field_values
from first_line
