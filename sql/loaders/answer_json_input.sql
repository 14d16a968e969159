-- reads: answer_records, answer_sentence_input
-- produces: answer_input (line_number, run_id, topic_id, team, topic_text, response_length, length_given)
-- grain: line_number
-- params: none
-- answer_json_input: one row per readable answer of a TREC RAG file: its run, topic, team (2025's
-- metadata.team_id), topic text, and length in words: the file's response_length, else the words
-- of its sentences counted (word_count, sql/loaders/rag_macros.sql; TREC RAG 2025 files carry none).
with counted as (
    select line_number, sum(word_count(text))::integer as words
    from answer_sentence_input
    where line_number in (select answer_records.line_number from answer_records where not answer_records.length_given)
    group by line_number
)

select
    answer_records.line_number,
    answer_records.run_id,
    answer_records.topic_id,
    answer_records.team,
    answer_records.topic_text,
    coalesce(answer_records.response_length, counted.words, 0) as response_length,
    answer_records.length_given
from answer_records
left join counted on answer_records.line_number = counted.line_number
where answer_records.problem is null
