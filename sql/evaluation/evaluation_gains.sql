-- evaluation_gains: the gain of every judged level of every topic under every gain profile of
-- the evaluated campaign (gain_values, restricted to one campaign).
-- Reads: gain_values. Parameters: $campaign_id.
select profile, topic_id, level, gain
from gain_values
where campaign_id = $campaign_id
