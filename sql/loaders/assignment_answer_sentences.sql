-- reads: answer_input, assignment_records
-- produces: answer_sentence_input (line_number, problem, run_id, topic_id, sentence_number, text, citations, reference_count)
-- grain: line_number, sentence_number
-- params: none
-- assignment_answer_sentences: the text of each answer nuggetizer's assign output brings
-- (assignment_answers.sql, which takes no empty one) as its one sentence, without citations.
select
    assignment_records.line_number,
    null::varchar as problem,
    assignment_records.run_id,
    assignment_records.topic_id,
    1 as sentence_number,
    assignment_records.answer_text as text,
    []::varchar[] as citations,
    0::bigint as reference_count
from assignment_records
inner join answer_input on assignment_records.line_number = answer_input.line_number
