-- reads: profile_gains
-- produces: gain_maxima (campaign_id, judgment_set, profile, topic_id, max_gain)
-- grain: campaign_id, judgment_set, profile, topic_id
-- params: none
-- gain_maxima: one row per (campaign_id, profile, topic_id): the highest gain the profile can
-- give in the topic, gmax (NTCIREVAL: the last value of the -g list, even when no document of
-- the topic has that level). Cascade measures stop with probability gain / (gmax + 1) and
-- NTCIREVAL's RBP divides gains by gmax (docs/adhoc-measures.md section 3).
-- Reads: profile_gains (the campaign-wide and profile-listed levels are its judged = false rows).
-- The levels considered are every positive level judged anywhere in the campaign (its h) and,
-- for a stored profile, every level the profile lists; a stored profile's level it does not
-- list keeps gain = level, as in gain_values. Built-in profiles as in gain_values: linear,
-- exp, flat (1), steep (1, 5, 10, then the level) and adjust (per topic: X - R(X)/R when
-- 0 < R(X) < R, else X; a campaign level the topic does not use has R(X) = 0, gain X).
-- Stored rows under a built-in name replace that built-in for their campaign.
select
    campaign_id,
    judgment_set,
    profile,
    topic_id,
    max(gain) as max_gain
from profile_gains
where intent_id = '' and level > 0
group by campaign_id, judgment_set, profile, topic_id
