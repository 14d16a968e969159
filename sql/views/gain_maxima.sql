-- gain_maxima: one row per (campaign_id, profile, topic_id): the highest gain the profile can
-- give in the topic, gmax (NTCIREVAL: the last value of the -g list, even when no document of
-- the topic has that level). Cascade measures stop with probability gain / (gmax + 1) and
-- NTCIREVAL's RBP divides gains by gmax (metrics-adhoc.md section 3).
-- Reads: topic_levels, gain_profiles.
-- The levels considered are every positive level judged anywhere in the campaign (its h) and,
-- for a stored profile, every level the profile lists; a stored profile's level it does not
-- list keeps gain = level, as in gain_values.
with campaign_levels as (
    select distinct campaign_id, level
    from topic_levels
    where level > 0
),

campaign_topics as (
    select distinct campaign_id, topic_id
    from topic_levels
),

builtin as (
    select
        campaign_topics.campaign_id,
        profiles.profile,
        campaign_topics.topic_id,
        max(
            case
                when profiles.profile = 'exp' then pow(2.0, campaign_levels.level) - 1
                else campaign_levels.level::double
            end
        ) as max_gain
    from campaign_topics
    inner join campaign_levels on campaign_topics.campaign_id = campaign_levels.campaign_id
    cross join (values ('linear'), ('exp')) as profiles (profile)
    group by campaign_topics.campaign_id, profiles.profile, campaign_topics.topic_id
),

explicit_profiles as (
    select distinct campaign_id, profile
    from gain_profiles
),

profile_levels as (
    select campaign_id, profile, level
    from gain_profiles
    where level > 0
    union
    select explicit_profiles.campaign_id, explicit_profiles.profile, campaign_levels.level
    from explicit_profiles
    inner join campaign_levels on explicit_profiles.campaign_id = campaign_levels.campaign_id
),

explicit as (
    select
        campaign_topics.campaign_id,
        profile_levels.profile,
        campaign_topics.topic_id,
        max(coalesce(topic_gain.gain, all_topics_gain.gain, profile_levels.level::double))
            as max_gain
    from campaign_topics
    inner join profile_levels on campaign_topics.campaign_id = profile_levels.campaign_id
    left join gain_profiles as topic_gain
        on
            topic_gain.campaign_id = campaign_topics.campaign_id
            and topic_gain.profile = profile_levels.profile
            and topic_gain.topic_id = campaign_topics.topic_id
            and topic_gain.level = profile_levels.level
    left join gain_profiles as all_topics_gain
        on
            all_topics_gain.campaign_id = campaign_topics.campaign_id
            and all_topics_gain.profile = profile_levels.profile
            and all_topics_gain.topic_id = ''
            and all_topics_gain.level = profile_levels.level
    group by campaign_topics.campaign_id, profile_levels.profile, campaign_topics.topic_id
)

select campaign_id, profile, topic_id, max_gain from builtin
union all
select campaign_id, profile, topic_id, max_gain from explicit
