-- first_data_line: the fields of the first non-blank line (format and separator detection).
-- Reads: input_fields(line_number, is_blank, fields).
select fields
from input_fields
where not is_blank
order by line_number
limit 1
