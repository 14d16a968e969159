-- reads: qrels_by_set
-- produces: ideal_gains (campaign_id, judgment_set, topic_id, ideal_rank, gain, ideal_gain_so_far)
-- grain: campaign_id, judgment_set, topic_id, ideal_rank
-- params: none
-- ideal_gains: one row per (campaign_id, topic_id, ideal_rank): the ideal list of a topic (its
-- judged documents with positive linear gain, levels descending) and its cumulative gain.
-- Reads: qrels (ad hoc judgments). Only gains matter, so ties among equal levels are immaterial.
-- The engine reads the ad hoc staging's evaluation_ideal_gains under profile 'linear' (a view
-- cannot read an evaluation's temporary stage); tests/sql/test_one_definition.py checks that the
-- two lists are equal.
with positive as (
    select campaign_id, judgment_set, topic_id, level::double as gain
    from qrels_by_set
    where intent_id = '' and level > 0
)

select
    campaign_id,
    judgment_set,
    topic_id,
    row_number() over running as ideal_rank,
    gain,
    sum(gain) over running as ideal_gain_so_far
from positive
window running as (
    partition by campaign_id, judgment_set, topic_id
    order by gain desc
    rows between unbounded preceding and current row
)
