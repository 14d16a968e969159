-- reads: answer_records, answer_sentence_input
-- produces: answer_citation_input (line_number, run_id, topic_id, sentence_number, citation_number, doc_id, problem)
-- grain: line_number, sentence_number, citation_number
-- params: none
-- answer_json_citations: one row per citation of a sentence of a TREC RAG answer, numbered from 1
-- in the sentence's list: the document it names. An integer i is a 0-based index into the
-- answer's references (TREC RAG 2024 and 2025), the document of reference i + 1; a string is a
-- document, which must be among the references. problem: an index outside the references, a
-- string not among them, a citation that is neither (null when it is fine).
with citations as (
    select
        line_number,
        run_id,
        topic_id,
        sentence_number,
        reference_count,
        unnest(citations) as citation,
        generate_subscripts(citations, 1) as citation_number
    from answer_sentence_input
    where citations is not null
),

resolved as (
    select
        citations.*,
        json_type(citation) as citation_kind,
        case
            when json_type(citation) in ('BIGINT', 'UBIGINT') then try_cast(json_id(citation) as bigint)
        end as citation_index,
        answer_records.answer_references
    from citations
    inner join answer_records on citations.line_number = answer_records.line_number
)

select
    line_number,
    run_id,
    topic_id,
    sentence_number,
    citation_number::integer as citation_number,
    case
        when citation_index is not null and citation_index between 0 and reference_count - 1
            then answer_references[citation_index + 1]
        when citation_kind = 'VARCHAR' and list_contains(answer_references, json_id(citation)) then json_id(citation)
    end as doc_id,
    case
        when citation_index is not null and not citation_index between 0 and reference_count - 1
            then 'sentence ' || sentence_number || ' cites reference ' || citation_index
            || ', but the answer has ' || reference_count || ' references (0 to ' || (reference_count - 1) || ')'
        when citation_kind = 'VARCHAR' and not list_contains(answer_references, json_id(citation))
            then 'sentence ' || sentence_number || ' cites ''' || json_id(citation) || ''', which its references do not list'
        when citation_index is null and coalesce(citation_kind, 'NULL') <> 'VARCHAR'
            then 'sentence ' || sentence_number || ': citation ' || coalesce(citation::varchar, 'null')
            || ' is neither a reference index nor a document'
    end as problem
from resolved
