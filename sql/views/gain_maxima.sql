-- gain_maxima: one row per (campaign_id, profile, topic_id): the highest gain the profile can
-- give in the topic, gmax (NTCIREVAL: the last value of the -g list, even when no document of
-- the topic has that level). Cascade measures stop with probability gain / (gmax + 1) and
-- NTCIREVAL's RBP divides gains by gmax (metrics-adhoc.md section 3).
-- Reads: topic_levels, gain_profiles.
-- The levels considered are every positive level judged anywhere in the campaign (its h) and,
-- for a stored profile, every level the profile lists; a stored profile's level it does not
-- list keeps gain = level, as in gain_values. Built-in profiles as in gain_values: linear,
-- exp, flat (1), steep (1, 5, 10, then the level) and adjust (per topic: X - R(X)/R when
-- 0 < R(X) < R, else X; a campaign level the topic does not use has R(X) = 0, gain X).
-- Stored rows under a built-in name replace that built-in for their campaign.
with campaign_levels as (
    select distinct campaign_id, level
    from topic_levels
    where level > 0
),

campaign_topics as (
    select distinct campaign_id, topic_id
    from topic_levels
),

topic_relevant as (
    select campaign_id, topic_id, sum(judgments) filter (where level > 0) as num_rel
    from topic_levels
    group by campaign_id, topic_id
),

builtin_names as (
    select profile
    from (values ('linear'), ('exp'), ('flat'), ('steep'), ('adjust')) as names (profile)
),

explicit_profiles as (
    select distinct campaign_id, profile
    from gain_profiles
),

topic_level_counts as (
    select
        campaign_topics.campaign_id,
        campaign_topics.topic_id,
        campaign_levels.level,
        coalesce(topic_levels.judgments, 0) as judgments,
        topic_relevant.num_rel
    from campaign_topics
    inner join campaign_levels on campaign_topics.campaign_id = campaign_levels.campaign_id
    left join topic_levels
        on
            topic_levels.campaign_id = campaign_topics.campaign_id
            and topic_levels.topic_id = campaign_topics.topic_id
            and topic_levels.level = campaign_levels.level
    left join topic_relevant
        on
            topic_relevant.campaign_id = campaign_topics.campaign_id
            and topic_relevant.topic_id = campaign_topics.topic_id
),

builtin as (
    select
        topic_level_counts.campaign_id,
        builtin_names.profile,
        topic_level_counts.topic_id,
        max(
            case
                when builtin_names.profile = 'exp' then pow(2.0, topic_level_counts.level) - 1
                when builtin_names.profile = 'flat' then 1.0
                when builtin_names.profile = 'steep'
                    then case topic_level_counts.level when 1 then 1.0 when 2 then 5.0 when 3 then 10.0
                        else topic_level_counts.level::double end
                when
                    builtin_names.profile = 'adjust'
                    and topic_level_counts.judgments > 0
                    and topic_level_counts.judgments < topic_level_counts.num_rel
                    then topic_level_counts.level
                    - topic_level_counts.judgments / topic_level_counts.num_rel::double
                else topic_level_counts.level::double
            end
        ) as max_gain
    from topic_level_counts
    cross join builtin_names
    where not exists (
        select 1
        from explicit_profiles
        where
            explicit_profiles.campaign_id = topic_level_counts.campaign_id
            and explicit_profiles.profile = builtin_names.profile
    )
    group by topic_level_counts.campaign_id, builtin_names.profile, topic_level_counts.topic_id
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
