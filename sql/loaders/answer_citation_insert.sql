-- reads: answer_citation_input
-- writes: answer_citations
-- params: $campaign_id
-- answer_citation_insert: store the citations of the checked answers in campaign $campaign_id,
-- each as the document it names.
-- Rows go in as staged, in the file's order for the most part (no sort: a table has no order).
insert into answer_citations (campaign_id, run_id, topic_id, sentence_number, citation_number, doc_id)
select $campaign_id, run_id, topic_id, sentence_number, citation_number, doc_id
from answer_citation_input
