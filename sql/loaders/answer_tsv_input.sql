-- reads: answer_sentence_input
-- produces: answer_input (line_number, run_id, topic_id, team, topic_text, response_length, length_given)
-- grain: line_number
-- params: none
-- answer_tsv_input: one row per answer of an answers TSV file (its sentences' lines, the first
-- line named): its length in words, its sentences' words counted (word_count,
-- sql/loaders/rag_macros.sql); no team or topic text.
select
    min(line_number) as line_number,
    run_id,
    topic_id,
    null::varchar as team,
    null::varchar as topic_text,
    sum(word_count(text))::integer as response_length,
    false as length_given
from answer_sentence_input
where problem is null
group by run_id, topic_id
