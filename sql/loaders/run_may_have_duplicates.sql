-- run_may_have_duplicates: a quick screen for a document retrieved twice for one topic.
-- Reads: run_input. False means there is none; true (or a 64-bit hash collision, harmless)
-- sends the load through run_problems.sql, which names the lines. Used on the fast path, where
-- duplicates are the only possible problem (field counts and types are checked by the reader).
select count(*) <> count(distinct hash(topic_id, doc_id)) as may_have_duplicates
from run_input
