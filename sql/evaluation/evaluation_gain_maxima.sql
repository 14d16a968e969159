-- evaluation_gain_maxima: for the evaluated campaign, gmax of every (profile, topic_id).
-- Reads: gain_maxima. Parameters: $campaign_id.
select profile, topic_id, max_gain
from gain_maxima
where campaign_id = $campaign_id
