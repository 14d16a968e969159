-- reads: intent_gain_values
-- produces: gain_values (campaign_id, judgment_set, profile, topic_id, level, gain)
-- grain: campaign_id, judgment_set, profile, topic_id, level
-- params: none
-- gain_values: one row per (campaign_id, profile, topic_id, level): the gain of a judged level
-- under each gain profile, for every level a topic's ad hoc qrels use (intent_id = '').
-- Reads: intent_gain_values, which defines the profiles (linear, exp, flat, steep, adjust and
-- the stored ones of gain_profiles). Negative levels have gain 0 under every profile, built-in or explicit.
select campaign_id, judgment_set, profile, topic_id, level, gain
from intent_gain_values
where intent_id = ''
