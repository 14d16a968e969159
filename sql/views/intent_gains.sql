-- reads: diversity_judgments, intent_gain_values
-- produces: intent_gains (campaign_id, judgment_set, profile, topic_id, intent_id, doc_id, level, gain)
-- grain: campaign_id, judgment_set, profile, topic_id, intent_id, doc_id
-- params: none
-- intent_gains: one row per (campaign_id, profile, topic_id, intent_id, doc_id) of the
-- diversity qrels: a document's level for one intent and its per-intent gain g_i(d) under each
-- gain profile (docs/diversity-measures.md section 1.3: the profiles of intent_gain_values applied to
-- the intent's levels; NTCIREVAL's default is linear, gain = level). Negative levels (TREC spam,
-- -2) have gain 0: a diversity measure reads them as non-relevant. The judgments are
-- diversity_judgments' (an ad hoc campaign's topic is one intent, intent_id '').
select
    diversity_judgments.campaign_id,
    diversity_judgments.judgment_set,
    intent_gain_values.profile,
    diversity_judgments.topic_id,
    diversity_judgments.intent_id,
    diversity_judgments.doc_id,
    diversity_judgments.level,
    case when diversity_judgments.level <= 0 then 0.0 else intent_gain_values.gain end as gain
from diversity_judgments
inner join intent_gain_values
    on
        diversity_judgments.campaign_id = intent_gain_values.campaign_id
        and diversity_judgments.judgment_set = intent_gain_values.judgment_set
        and diversity_judgments.topic_id = intent_gain_values.topic_id
        and diversity_judgments.intent_id = intent_gain_values.intent_id
        and diversity_judgments.level = intent_gain_values.level
