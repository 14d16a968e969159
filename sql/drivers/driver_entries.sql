-- reads: driver_lists, evaluation_entries
-- produces: driver_entries (list_no, topic_no, topic_id, rank, doc_id)
-- grain: list_no, rank
-- params: none
-- driver_entries: the pooled documents (those with a qrels row for the topic, any intent) of
-- every list of driver_lists, with their rank: the ranked-and-cut stage evaluation_entries
-- (ordering, depth cut, judged_only; a document is judged when a qrels row of the topic gives
-- it a level >= 0), numbered by list. A list's other documents only occupy ranks, which `rank`
-- keeps.
select
    driver_lists.list_no,
    driver_lists.topic_no,
    evaluation_entries.topic_id,
    evaluation_entries.rank::integer as rank,
    evaluation_entries.doc_id
from evaluation_entries
inner join driver_lists
    on evaluation_entries.run_id = driver_lists.run_id and evaluation_entries.topic_id = driver_lists.topic_id
