-- reads: campaigns, qrels_by_set
-- produces: diversity_judgments (campaign_id, judgment_set, topic_id, intent_id, doc_id, level)
-- grain: campaign_id, judgment_set, topic_id, intent_id, doc_id
-- params: none
-- diversity_judgments: the judgments diversity measures read per intent (the one rule of
-- docs/diversity-measures.md section 1.2). A diversity campaign's per-intent judgments
-- (intent_id <> ''; its '' rows are NTCIR Dqrels' intent 0, "relevant to no intent"), and every
-- judgment of an ad hoc campaign, whose topic is read as one intent (intent_id '', of weight 1:
-- intent_weights), as ndeval reads ad hoc qrels. Reads: qrels_by_set, campaigns (qrels_kind).
select
    qrels_by_set.campaign_id,
    qrels_by_set.judgment_set,
    qrels_by_set.topic_id,
    qrels_by_set.intent_id,
    qrels_by_set.doc_id,
    qrels_by_set.level
from qrels_by_set
inner join campaigns on qrels_by_set.campaign_id = campaigns.campaign_id
where qrels_by_set.intent_id <> '' or campaigns.qrels_kind = 'adhoc'
