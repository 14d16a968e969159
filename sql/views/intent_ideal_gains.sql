-- reads: intent_gains
-- produces: intent_ideal_gains (campaign_id, judgment_set, profile, topic_id, intent_id, ideal_rank, gain,
--           ideal_gain_so_far)
-- grain: campaign_id, judgment_set, profile, topic_id, intent_id, ideal_rank
-- params: none
-- intent_ideal_gains: one row per (campaign_id, profile, topic_id, intent_id, ideal_rank): the
-- intent's own (local) ideal list, for the intent-aware measures: its documents at level >= 1,
-- per-intent gains descending, with the cumulative ideal gain. Only gains matter, so the order
-- of documents of equal gain is immaterial.
-- Reads: intent_gains. Reference: docs/diversity-measures.md section 6.1.
-- The engine reads the per-intent staging's evaluation_ideal_gains (a view cannot read an
-- evaluation's temporary stage); tests/sql/test_one_definition.py checks that the two lists are
-- equal.
select
    campaign_id,
    judgment_set,
    profile,
    topic_id,
    intent_id,
    row_number() over running as ideal_rank,
    gain,
    sum(gain) over running as ideal_gain_so_far
from intent_gains
where level >= 1
window running as (
    partition by campaign_id, judgment_set, profile, topic_id, intent_id
    order by gain desc
    rows between unbounded preceding and current row
)
