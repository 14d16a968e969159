-- reads: ndeval_intents, qrels_by_set
-- produces: ndeval_candidates (topic_no, doc_order, intent_no)
-- grain: topic_no, doc_order, intent_no
-- params: $campaign_id, $rel, $judgment_set
-- ndeval_candidates: the candidates of ndeval's greedy ideal list that can score: one row per
-- (topic, relevant document, intent), with the document's byte-order number within its topic
-- (doc_order; the larger wins a tie, as ndeval's strcmp rule).
-- Reference: docs/diversity-measures.md section 7.1.
select
    ndeval_intents.topic_no,
    (dense_rank() over (partition by qrels_by_set.topic_id order by qrels_by_set.doc_id) - 1)::integer as doc_order,
    ndeval_intents.intent_no
from qrels_by_set
inner join ndeval_intents
    on qrels_by_set.topic_id = ndeval_intents.topic_id and qrels_by_set.intent_id = ndeval_intents.intent_id
where qrels_by_set.campaign_id = $campaign_id and qrels_by_set.judgment_set = $judgment_set and qrels_by_set.level >= $rel
order by ndeval_intents.topic_no, doc_order, ndeval_intents.intent_no
