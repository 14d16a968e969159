-- reads: evaluation_intent_judgments, evaluation_levels, intent_gain_values
-- produces: evaluation_gains (profile, topic_id, level, gain, judgments)
-- grain: profile, topic_id, level
-- params: $profiles, $campaign_id, $judgment_set
-- per_intent_gains (temp table evaluation_gains of the per-intent staging): each level of each
-- intent list under every gain profile requested, the per-intent gain g_i of intent_gain_values;
-- level 0 (judged for other intents only) has gain 0.
with intent_lists as (
    select distinct
        topic_id,
        source_topic_id,
        intent_id
    from evaluation_intent_judgments
),

profiles as (
    select unnest($profiles) as profile
)

select
    profiles.profile,
    evaluation_levels.topic_id,
    evaluation_levels.level,
    case
        when evaluation_levels.level <= 0 then 0.0
        else coalesce(intent_gain_values.gain, evaluation_levels.level::double)
    end as gain,
    evaluation_levels.judgments
from evaluation_levels
inner join intent_lists on evaluation_levels.topic_id = intent_lists.topic_id
cross join profiles
left join intent_gain_values
    on
        intent_gain_values.campaign_id = $campaign_id
        and intent_gain_values.judgment_set = $judgment_set
        and intent_gain_values.profile = profiles.profile
        and intent_gain_values.topic_id = intent_lists.source_topic_id
        and intent_gain_values.intent_id = intent_lists.intent_id
        and intent_gain_values.level = evaluation_levels.level
