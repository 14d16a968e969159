-- reads: answer_citation_input
-- produces: answer_reference_input (line_number, run_id, topic_id, reference_number, doc_id)
-- grain: line_number, reference_number
-- params: none
-- answer_tsv_references: an answers TSV file gives no reference list: an answer's references are
-- the documents its sentences cite, each once, numbered from 1 in the order they are first cited
-- (sentence, then citation).
with first_citations as (
    select
        run_id,
        topic_id,
        doc_id,
        min(line_number) as line_number,
        min((sentence_number, citation_number)) as first_cited
    from answer_citation_input
    group by run_id, topic_id, doc_id
)

select
    line_number,
    run_id,
    topic_id,
    row_number() over (partition by run_id, topic_id order by first_cited)::integer as reference_number,
    doc_id
from first_citations
