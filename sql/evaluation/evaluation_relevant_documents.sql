-- reads: qrels_by_set
-- produces: evaluation_relevant_documents (topic_id, doc_id, level)
-- grain: topic_id, doc_id
-- params: $campaign_id
-- evaluation_relevant_documents: every relevant document (level > 0) of the evaluated campaign's
-- ad hoc qrels (intent_id = '', as topic_levels reads them) with its level. Compat reads it to
-- place a retrieved document of score exactly 0 among the unretrieved relevant documents of its
-- level, which also count as score 0 and go in docno order (sql/metrics/metric_compat.sql).
select
    topic_id,
    doc_id,
    max(level) as level
from qrels_by_set
where campaign_id = $campaign_id and intent_id = ''
group by topic_id, doc_id
having max(level) > 0
