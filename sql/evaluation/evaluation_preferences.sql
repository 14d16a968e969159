-- reads: qrels_by_set
-- produces: evaluation_preferences (topic_id, jg, jsg, doc_id, rel_level)
-- grain: topic_id, jg, jsg, doc_id
-- params: $campaign_id, $judgment_set
-- evaluation_preferences: preference judgments for the preference measures when the caller
-- staged none (pyeval trec_eval -R prefs stages a file's): the campaign's ad hoc qrels read as
-- preferences, one judgment group per topic (trec_eval get_qrels_prefs.c: a document is
-- preferred to every document of a lower level; the stored qrels keep no iteration field, so
-- the whole topic is one group).
select
    topic_id,
    '0' as jg,
    '0' as jsg,
    doc_id,
    level::double as rel_level
from qrels_by_set
where campaign_id = $campaign_id and judgment_set = $judgment_set and intent_id = ''
