-- reads: answers, assignment_records
-- produces: answer_input (line_number, run_id, topic_id, team, topic_text, response_length, length_given)
-- grain: line_number
-- params: $campaign_id
-- assignment_answers: the answers nuggetizer's assign output carries, for the (run, topic) pairs
-- campaign $campaign_id has no answer of (an answer stored already, from a TREC RAG file, is
-- kept): its length in words is the line's response_length, else its answer_text's words counted
-- (word_count, sql/loaders/rag_macros.sql). Its text becomes one sentence
-- (assignment_answer_sentences.sql): nuggetizer joins the sentences, and their citations are gone.
select
    line_number,
    run_id,
    topic_id,
    null::varchar as team,
    query as topic_text,
    coalesce(response_length, word_count(answer_text))::integer as response_length,
    length_given
from assignment_records
where
    problem is null
    and coalesce(trim(answer_text), '') <> ''
    and not exists (
        select 1
        from answers
        where
            answers.campaign_id = $campaign_id
            and answers.run_id = assignment_records.run_id
            and answers.topic_id = assignment_records.topic_id
    )
