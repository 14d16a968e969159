-- reads: answer_reference_input
-- writes: answer_references
-- params: $campaign_id
-- answer_reference_insert: store the reference lists of the checked answers in campaign $campaign_id.
-- Rows go in as staged, in the file's order for the most part (no sort: a table has no order).
insert into answer_references (campaign_id, run_id, topic_id, reference_number, doc_id)
select $campaign_id, run_id, topic_id, reference_number, doc_id
from answer_reference_input
