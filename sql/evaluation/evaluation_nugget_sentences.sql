-- reads: answer_sentences, evaluation_nugget_pairs
-- produces: evaluation_nugget_sentences (run_id, topic_id, sentence_number)
-- grain: run_id, topic_id, sentence_number
-- params: $campaign_id
-- evaluation_nugget_sentences: the sentences of every answered (run, topic) the measures of
-- generated answers score (evaluation_nugget_pairs): what CitationRecall and CitationsPerSentence
-- divide by (docs/rag.md "Measures").
select
    answer_sentences.run_id,
    answer_sentences.topic_id,
    answer_sentences.sentence_number
from answer_sentences
inner join evaluation_nugget_pairs
    on
        answer_sentences.run_id = evaluation_nugget_pairs.run_id
        and answer_sentences.topic_id = evaluation_nugget_pairs.topic_id
where answer_sentences.campaign_id = $campaign_id
