-- reads: driver_entries, ndeval_intents, qrels_by_set
-- produces: ndeval_hits (list_no, rank, intent_no)
-- grain: list_no, rank, intent_no
-- params: $campaign_id, $rel, $judgment_set
-- ndeval_hits: one row per (list, rank, intent) where the ranked document is relevant to the
-- intent (level >= $rel), ordered by list, rank and intent number.
-- Reads: driver_entries, qrels, ndeval_intents (a temp table of ndeval_intents.sql).
-- Reference: docs/diversity-measures.md section 7 (J(d, s)).
select
    driver_entries.list_no,
    driver_entries.rank,
    ndeval_intents.intent_no
from driver_entries
inner join qrels_by_set
    on
        qrels_by_set.campaign_id = $campaign_id
        and qrels_by_set.judgment_set = $judgment_set
        and driver_entries.topic_id = qrels_by_set.topic_id
        and driver_entries.doc_id = qrels_by_set.doc_id
        and qrels_by_set.level >= $rel
inner join ndeval_intents
    on qrels_by_set.topic_id = ndeval_intents.topic_id and qrels_by_set.intent_id = ndeval_intents.intent_id
order by driver_entries.list_no, driver_entries.rank, ndeval_intents.intent_no
