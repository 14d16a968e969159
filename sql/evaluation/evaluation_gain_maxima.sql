-- reads: gain_maxima
-- produces: evaluation_gain_maxima (profile, topic_id, max_gain)
-- grain: profile, topic_id
-- params: $campaign_id, $judgment_set
-- evaluation_gain_maxima: for the evaluated campaign, gmax of every (profile, topic_id).
select profile, topic_id, max_gain
from gain_maxima
where campaign_id = $campaign_id and judgment_set = $judgment_set
