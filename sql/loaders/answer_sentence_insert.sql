-- reads: answer_sentence_input
-- writes: answer_sentences
-- params: $campaign_id
-- answer_sentence_insert: store the sentences of the checked answers in campaign $campaign_id.
-- Rows go in as staged, in the file's order for the most part (no sort: a table has no order).
insert into answer_sentences (campaign_id, run_id, topic_id, sentence_number, text)
select $campaign_id, run_id, topic_id, sentence_number, text
from answer_sentence_input
