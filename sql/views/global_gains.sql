-- reads: intent_gains, intent_weights
-- produces: global_gains (campaign_id, judgment_set, probs, profile, topic_id, doc_id, global_gain)
-- grain: campaign_id, judgment_set, probs, profile, topic_id, doc_id
-- params: none
-- global_gains: one row per (campaign_id, probs, profile, topic_id, doc_id) of every document
-- judged for at least one listed intent: its global gain GG(d) = sum over the topic's intents i
-- of Pr(i|q) g_i(d), under each probability variant (intent_weights) and gain profile
-- (intent_gains). A document is globally relevant when GG(d) > 0, as NTCIREVAL's gcompute has
-- it (so a document relevant only to intents with Pr(i|q) = 0 is not). The D-measures replace a
-- measure's gains by GG and its ideal list by global_ideal_gains.
-- Reads: intent_gains, intent_weights. Reference: docs/diversity-measures.md section 3.1 (Sakai et
-- al., EVIA 2010; Sakai & Song, SIGIR 2011).
select
    intent_gains.campaign_id,
    intent_gains.judgment_set,
    intent_weights.probs,
    intent_gains.profile,
    intent_gains.topic_id,
    intent_gains.doc_id,
    sum(intent_weights.probability * intent_gains.gain) as global_gain
from intent_gains
inner join intent_weights
    on
        intent_gains.campaign_id = intent_weights.campaign_id
        and intent_gains.judgment_set = intent_weights.judgment_set
        and intent_gains.topic_id = intent_weights.topic_id
        and intent_gains.intent_id = intent_weights.intent_id
group by
    intent_gains.campaign_id,
    intent_gains.judgment_set,
    intent_weights.probs,
    intent_gains.profile,
    intent_gains.topic_id,
    intent_gains.doc_id
