-- reads: intent_gain_values, qrels
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
    qrels.campaign_id,
    qrels.judgment_set,
    intent_gain_values.profile,
    qrels.topic_id,
    qrels.intent_id,
    qrels.doc_id,
    qrels.level,
    case when qrels.level <= 0 then 0.0 else intent_gain_values.gain end as gain
from qrels
inner join intent_gain_values
    on
        qrels.campaign_id = intent_gain_values.campaign_id
        and qrels.judgment_set = intent_gain_values.judgment_set
        and qrels.topic_id = intent_gain_values.topic_id
        and qrels.intent_id = intent_gain_values.intent_id
        and qrels.level = intent_gain_values.level
where qrels.intent_id <> ''
