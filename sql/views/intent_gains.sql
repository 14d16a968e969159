-- reads: intent_gain_values, qrels_by_set
-- produces: intent_gains (campaign_id, judgment_set, profile, topic_id, intent_id, doc_id, level, gain)
-- grain: campaign_id, judgment_set, profile, topic_id, intent_id, doc_id
-- params: none
-- intent_gains: one row per (campaign_id, profile, topic_id, intent_id, doc_id) of the
-- diversity qrels: a document's level for one intent and its per-intent gain g_i(d) under each
-- gain profile (docs/diversity-measures.md section 1.3: the profiles of intent_gain_values applied to
-- the intent's levels; NTCIREVAL's default is linear, gain = level). Negative levels (TREC spam,
-- -2) have gain 0: a diversity measure reads them as non-relevant. Ad hoc judgments
-- (intent_id = '') are not here.
select
    qrels_by_set.campaign_id,
    qrels_by_set.judgment_set,
    intent_gain_values.profile,
    qrels_by_set.topic_id,
    qrels_by_set.intent_id,
    qrels_by_set.doc_id,
    qrels_by_set.level,
    case when qrels_by_set.level <= 0 then 0.0 else intent_gain_values.gain end as gain
from qrels_by_set
inner join intent_gain_values
    on
        qrels_by_set.campaign_id = intent_gain_values.campaign_id
        and qrels_by_set.judgment_set = intent_gain_values.judgment_set
        and qrels_by_set.topic_id = intent_gain_values.topic_id
        and qrels_by_set.intent_id = intent_gain_values.intent_id
        and qrels_by_set.level = intent_gain_values.level
where qrels_by_set.intent_id <> ''
