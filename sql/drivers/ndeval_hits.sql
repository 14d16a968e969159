-- reads: driver_entries, ndeval_intents, qrels
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
inner join qrels
    on
        qrels.campaign_id = $campaign_id
        and qrels.judgment_set = $judgment_set
        and driver_entries.topic_id = qrels.topic_id
        and driver_entries.doc_id = qrels.doc_id
        and qrels.level >= $rel
inner join ndeval_intents
    on qrels.topic_id = ndeval_intents.topic_id and qrels.intent_id = ndeval_intents.intent_id
order by driver_entries.list_no, driver_entries.rank, ndeval_intents.intent_no
