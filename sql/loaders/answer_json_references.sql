-- reads: answer_records
-- produces: answer_reference_input (line_number, run_id, topic_id, reference_number, doc_id)
-- grain: line_number, reference_number
-- params: none
-- answer_json_references: one row per entry of a readable TREC RAG answer's references, numbered
-- from 1 in the file's order (the citation index i is reference i + 1).
select
    line_number,
    run_id,
    topic_id,
    reference_number::integer as reference_number,
    doc_id
from (
    select
        line_number,
        run_id,
        topic_id,
        unnest(answer_references) as doc_id,
        generate_subscripts(answer_references, 1) as reference_number
    from answer_records
    where problem is null
)
