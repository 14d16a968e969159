-- reads: evaluation_gains
-- produces: evaluation_gain_maxima (profile, topic_id, max_gain)
-- grain: profile, topic_id
-- params: none
-- per_intent_gain_maxima (temp table evaluation_gain_maxima of the per-intent staging): gmax of
-- each intent list, the largest gain the intent's judged documents have (NTCIREVAL's
-- D-NTCIR-IAeval: gcompute on the intent's Irelv file, whose largest gain is gmax; so with
-- binary per-intent data ERR's stop probability is 1/2).
-- Reads: evaluation_gains. Reference: docs/diversity-measures.md section 6.1.
select
    profile,
    topic_id,
    max(gain) filter (where judgments > 0) as max_gain
from evaluation_gains
group by profile, topic_id
