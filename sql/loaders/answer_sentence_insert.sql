-- reads: answer_sentence_input
-- writes: answer_sentences
-- params: $campaign_id
-- answer_sentence_insert: store the sentences of the checked answers in campaign $campaign_id.
insert into answer_sentences (campaign_id, run_id, topic_id, sentence_number, text)
select $campaign_id, run_id, topic_id, sentence_number, text
from answer_sentence_input
order by line_number, sentence_number
