-- reads: answer_citations, citation_support, evaluation_nugget_pairs
-- produces: evaluation_nugget_citations (run_id, topic_id, sentence_number, citation_number, label)
-- grain: run_id, topic_id, sentence_number, citation_number
-- params: $campaign_id, $judgment_set
-- evaluation_nugget_citations: every citation of every answered (run, topic) the measures of
-- generated answers score (evaluation_nugget_pairs), with the label the citation support set
-- $judgment_set gives the cited document for that sentence (full, partial or none; null: not
-- judged, which CitationPrecision and CitationRecall credit 0, as none; docs/rag.md). A document
-- cited twice in one sentence is two citations with one label.
with support as (
    select
        run_id,
        topic_id,
        sentence_number,
        doc_id,
        label
    from citation_support
    where campaign_id = $campaign_id and judgment_set = $judgment_set
)

select
    answer_citations.run_id,
    answer_citations.topic_id,
    answer_citations.sentence_number,
    answer_citations.citation_number,
    support.label
from answer_citations
inner join evaluation_nugget_pairs
    on
        answer_citations.run_id = evaluation_nugget_pairs.run_id
        and answer_citations.topic_id = evaluation_nugget_pairs.topic_id
left join support
    on
        answer_citations.run_id = support.run_id
        and answer_citations.topic_id = support.topic_id
        and answer_citations.sentence_number = support.sentence_number
        and answer_citations.doc_id = support.doc_id
where answer_citations.campaign_id = $campaign_id
