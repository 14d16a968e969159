-- reads: assignment_records
-- produces: assignment_record_problems (line_number, problem)
-- grain: line_number
-- params: none
-- assignment_record_problems: the first unreadable line of nuggetizer's assign output
-- (assignment_json_records.sql).
select line_number, problem
from assignment_records
where problem is not null
order by line_number
limit 1
