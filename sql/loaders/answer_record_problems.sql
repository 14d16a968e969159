-- reads: answer_records
-- produces: answer_record_problems (line_number, problem)
-- grain: line_number
-- params: none
-- answer_record_problems: the first unreadable line of a TREC RAG answer file
-- (answer_json_records.sql).
select line_number, problem
from answer_records
where problem is not null
order by line_number
limit 1
