-- reads: excluded_documents, qrels_by_set
-- produces: derived_judgments (topic_id, intent_id, doc_id, level)
-- grain: topic_id, intent_id, doc_id
-- params: $campaign_id, $parent
-- derive_minus: the judgment set $parent without the documents of excluded_documents
-- (topic_id, doc_id; every intent of such a document goes): a set = parent minus a list of
-- documents, as leave-one-group-out pooling experiments build (the documents only one group
-- contributed). pyeval/judgments/derive.py stages excluded_documents from a file or a frame.
-- docs/judgments.md section 3.
select
    qrels_by_set.topic_id,
    qrels_by_set.intent_id,
    qrels_by_set.doc_id,
    qrels_by_set.level
from qrels_by_set
where
    qrels_by_set.campaign_id = $campaign_id
    and qrels_by_set.judgment_set = $parent
    and not exists (
        select 1
        from excluded_documents
        where excluded_documents.topic_id = qrels_by_set.topic_id and excluded_documents.doc_id = qrels_by_set.doc_id
    )
