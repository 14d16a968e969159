-- reads: profile_gains
-- produces: intent_gain_values (campaign_id, judgment_set, profile, topic_id, intent_id, level, gain)
-- grain: campaign_id, judgment_set, profile, topic_id, intent_id, level
-- params: none
-- intent_gain_values: one row per (campaign_id, profile, topic_id, intent_id, level): the gain
-- of a judged level under each gain profile, for every level a topic's qrels use for an intent
-- (intent_id = '': the ad hoc judgments, which gain_values shows; a diversity intent: the
-- per-intent gain g_i of docs/diversity-measures.md section 1.3). Per-topic rules ('adjust') count the
-- judgments of the same (topic, intent).
-- Reads: profile_gains (where every profile's gains are defined).
-- Built-in profiles (docs/adhoc-measures.md section 1.1; Sakai, AIRS 2005, section 4.5):
--   'linear' gain = level (trec_eval ndcg; NTCIREVAL -g 1:2:3...; Sakai's default "3:2:1" for
--            h = 3: gain(S)=3, gain(A)=2, gain(B)=1)
--   'exp'    gain = 2^level - 1 (Burges et al. 2005; Sakai & Song 2011)
--   'flat'   gain = 1 for every positive level ("1:1:1", binary relevance)
--   'steep'  levels 1, 2, 3 -> 1, 5, 10 ("10:5:1" for S:A:B); a higher level keeps gain = level,
--            as in a stored profile "1:5:10"
--   'adjust' per topic, from the default (linear) gains and the topic's R(X)/R
--            (docs/adhoc-measures.md section 1.2, a RECONSTRUCTION of Sakai's rule):
--            gain'(X) = gain(Y) + (gain(X) - gain(Y)) * (1 - R(X)/R) if 0 < R(X) < R, where Y is
--            the level below X (gain(0) = 0); else gain'(X) = gain(X). With linear gains this is
--            X - R(X)/R.
-- Explicit profiles (rows of gain_profiles) override single levels; unlisted levels keep
-- gain = level (trec_eval). Stored rows under a built-in name (only possible through raw SQL;
-- pyeval gains refuses the names) replace that built-in for their campaign.
-- Negative levels (pooled but unjudged) have gain 0 under every profile, built-in or explicit.
select campaign_id, judgment_set, profile, topic_id, intent_id, level, gain
from profile_gains
where judged
