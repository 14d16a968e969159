-- reads: global_gains
-- produces: global_ideal_gains (campaign_id, judgment_set, probs, profile, topic_id, ideal_rank, gain,
--           ideal_gain_so_far)
-- grain: campaign_id, judgment_set, probs, profile, topic_id, ideal_rank
-- params: none
-- global_ideal_gains: one row per (campaign_id, probs, profile, topic_id, ideal_rank): the
-- globally ideal list of a topic, every document with GG(d) > 0 sorted by global gain
-- descending, GG*(r), with its cumulative ideal gain. There is exactly one per topic (no
-- NP-hard step); D- and DIN-measures both divide by it.
-- Reads: global_gains. Reference: docs/diversity-measures.md sections 3.1 and 4.
-- The engine reads the global staging's evaluation_ideal_gains (a view cannot read an evaluation's
-- temporary stage); tests/sql/test_one_definition.py checks that the two lists are equal.
select
    campaign_id,
    judgment_set,
    probs,
    profile,
    topic_id,
    row_number() over running as ideal_rank,
    global_gain as gain,
    sum(global_gain) over running as ideal_gain_so_far
from global_gains
where global_gain > 0
window running as (
    partition by campaign_id, judgment_set, probs, profile, topic_id
    order by global_gain desc
    rows between unbounded preceding and current row
)
