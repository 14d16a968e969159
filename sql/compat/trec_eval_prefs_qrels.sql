-- reads: evaluation_preferences
-- writes: qrels_by_set
-- params: $campaign_id
-- trec_eval_prefs_qrels: the qrels a preference evaluation needs: one line per (topic, document)
-- of the staged preferences, so that evaluation_pairs finds the topics and evaluation_ranks the
-- retrieved judged documents. level 1 when some judgment group gives the document a level > 0,
-- else 0 (the measures read the levels from evaluation_preferences, not from here).
insert into qrels_by_set (campaign_id, topic_id, intent_id, doc_id, level)
select
    $campaign_id,
    topic_id,
    '',
    doc_id,
    case when max(rel_level) > 0 then 1 else 0 end
from evaluation_preferences
group by topic_id, doc_id
