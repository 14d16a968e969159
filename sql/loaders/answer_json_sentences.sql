-- reads: answer_records
-- produces: answer_sentence_input (line_number, problem, run_id, topic_id, sentence_number, text, citations, reference_count)
-- grain: line_number, sentence_number
-- params: none
-- answer_json_sentences: one row per sentence of the readable answers of a TREC RAG file
-- (answer_json_records.sql), numbered from 1 in the answer's order, with its citations (JSON
-- values, answer_json_citations.sql reads them) and how many references its answer lists.
-- problem: null (a TSV line's, sql/loaders/answer_tsv_sentences.sql).
select
    line_number,
    null::varchar as problem,
    run_id,
    topic_id,
    sentence_number::integer as sentence_number,
    sentence.text,
    sentence.citations,
    reference_count
from (
    select
        line_number,
        run_id,
        topic_id,
        len(answer_references) as reference_count,
        unnest(sentences) as sentence,
        generate_subscripts(sentences, 1) as sentence_number
    from answer_records
    where problem is null
)
