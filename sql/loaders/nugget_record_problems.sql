-- reads: nugget_records
-- produces: nugget_record_problems (line_number, problem)
-- grain: line_number
-- params: none
-- nugget_record_problems: the first unreadable line of nuggetizer's create output
-- (nugget_json_records.sql).
select line_number, problem
from nugget_records
where problem is not null
order by line_number
limit 1
