-- run_has_duplicates: whether a document is retrieved twice for one topic (one row if so).
-- Reads: run_input. Used on the fast path, where duplicates are the only possible problem
-- (field counts and types are checked by the reader); run_problems.sql then names the lines.
-- (A 64-bit hash screen was tried: DuckDB's hash() collides on ClueWeb docnos, so exact.)
select true as has_duplicates
from run_input
group by topic_id, doc_id
having count(*) > 1
limit 1
