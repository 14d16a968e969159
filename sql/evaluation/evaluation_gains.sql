-- reads: gain_values, topic_levels
-- produces: evaluation_gains (profile, topic_id, level, gain, judgments)
-- grain: profile, topic_id, level
-- params: $campaign_id, $judgment_set
-- evaluation_gains: for the evaluated campaign, every judged level of every topic with the
-- number of documents judged at it, and its gain under every gain profile.
select
    gain_values.profile,
    gain_values.topic_id,
    gain_values.level,
    gain_values.gain,
    topic_levels.judgments
from gain_values
inner join topic_levels
    on
        gain_values.campaign_id = topic_levels.campaign_id
        and gain_values.judgment_set = topic_levels.judgment_set
        and gain_values.topic_id = topic_levels.topic_id
        and gain_values.level = topic_levels.level
where gain_values.campaign_id = $campaign_id and gain_values.judgment_set = $judgment_set
