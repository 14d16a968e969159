-- reads: evaluation_document_gains, evaluation_ranked_gains
-- produces: evaluation_gain_codes (topic_id, gain, level)
-- grain: topic_id, gain
-- params: none
-- diversity_gain_codes (temp table evaluation_gain_codes): one row per (topic_id, gain) of a D-
-- or DIN-staging: every distinct gain a judged document has (GG) or a ranked document earns
-- (GG_DIN), with the level code the ad hoc families read for it: 0 for gain 0, else 1, 2, ...
-- in increasing gain order. Codes stand for gains, so "level >= 1" is "GG > 0" (gcompute's
-- relevance), the highest level present is the highest gain present (rp), and the families'
-- level -> gain join (evaluation_gains) gives each document its own global gain.
with gains as (
    select topic_id, gain from evaluation_document_gains
    union
    select topic_id, gain from evaluation_ranked_gains
)

select
    topic_id,
    gain,
    0 as level
from gains
where gain <= 0

union all

select
    topic_id,
    gain,
    dense_rank() over (partition by topic_id order by gain)::integer as level
from gains
where gain > 0
