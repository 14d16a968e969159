-- reads: answer_reference_input, answer_sentence_input
-- produces: answer_citation_input (line_number, run_id, topic_id, sentence_number, citation_number, doc_id, problem)
-- grain: line_number, sentence_number, citation_number
-- params: none
-- answer_json_citations: one row per citation of a sentence of a TREC RAG answer, numbered from 1
-- in the sentence's list: the document it names. An integer i is a 0-based index into the
-- answer's references (TREC RAG 2024 and 2025), the document of reference i + 1
-- (answer_json_references.sql); a string is a document, which must be among the references.
-- problem: an index outside the references, a string not among them, a citation that is neither
-- (null when it is fine).
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

kinds as (
    select *, json_type(citation) as citation_kind
    from citations
),

typed as (
    select
        *,
        case
            when citation_kind in ('BIGINT', 'UBIGINT') then try_cast(json_id(citation) as bigint)
        end as citation_index,
        case when citation_kind = 'VARCHAR' then json_id(citation) end as cited_document
    from kinds
),

-- the references of the answers that cite a document by its id (TREC RAG 2025's second form only)
listed_documents as (
    select distinct line_number, doc_id
    from answer_reference_input
    where line_number in (select typed.line_number from typed where typed.cited_document is not null)
),

resolved as (
    select
        typed.*,
        answer_reference_input.doc_id as indexed_document,
        listed_documents.doc_id is not null as is_listed
    from typed
    left join answer_reference_input
        on typed.line_number = answer_reference_input.line_number
        and typed.citation_index + 1 = answer_reference_input.reference_number
    left join listed_documents
        on typed.line_number = listed_documents.line_number
        and typed.cited_document = listed_documents.doc_id
)

select
    line_number,
    run_id,
    topic_id,
    sentence_number,
    citation_number::integer as citation_number,
    case when citation_index is not null then indexed_document when is_listed then cited_document end as doc_id,
    case
        when citation_index is not null and indexed_document is null
            then 'sentence ' || sentence_number || ' cites reference ' || citation_index
            || ', but the answer has ' || reference_count || ' references (0 to ' || (reference_count - 1) || ')'
        when cited_document is not null and not is_listed
            then 'sentence ' || sentence_number || ' cites ''' || cited_document || ''', which its references do not list'
        when citation_index is null and cited_document is null
            then 'sentence ' || sentence_number || ': citation ' || coalesce(citation::varchar, 'null')
            || ' is neither a reference index nor a document'
    end as problem
from resolved
