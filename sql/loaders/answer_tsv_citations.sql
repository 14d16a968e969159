-- reads: answer_sentence_input
-- produces: answer_citation_input (line_number, run_id, topic_id, sentence_number, citation_number, doc_id, problem)
-- grain: line_number, sentence_number, citation_number
-- params: none
-- answer_tsv_citations: one row per document cited by a sentence of an answers TSV file
-- (answer_tsv_sentences.sql), numbered from 1 in the line's order. problem: null (a cited
-- document is a reference by definition: answer_tsv_references.sql).
select
    line_number,
    run_id,
    topic_id,
    sentence_number,
    citation_number::integer as citation_number,
    doc_id,
    null::varchar as problem
from (
    select
        line_number,
        run_id,
        topic_id,
        sentence_number,
        unnest(citations) as doc_id,
        generate_subscripts(citations, 1) as citation_number
    from answer_sentence_input
    where problem is null
)
