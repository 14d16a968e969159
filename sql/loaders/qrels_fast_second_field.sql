-- reads: staged_file
-- produces: qrels_fast_second_field (second_field_values)
-- grain: one row
-- params: none
-- qrels_fast_second_field: how many distinct values the second field of a TREC qrels file staged
-- by the fast path takes (format auto: TREC ad hoc qrels carry a constant iteration there, TREC
-- diversity qrels the subtopic; qrels_format_evidence.sql asks the same of the general path's
-- fields). Reads: staged_file (the rows of qrels_fast_rows.sql).
select count(distinct iter) as second_field_values
from staged_file
