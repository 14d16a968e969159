-- gain_values: one row per (campaign_id, profile, topic_id, level): the gain of a judged level
-- under each gain profile, for every level a topic's ad hoc qrels use.
-- Reads: topic_levels, gain_profiles.
-- Built-in profiles: 'linear' gain = level (trec_eval ndcg; NTCIREVAL -g 1:2:3...), 'exp'
-- gain = 2^level - 1 (Burges et al. 2005; Sakai & Song 2011). Explicit profiles (rows of
-- gain_profiles) override single levels; unlisted levels keep gain = level (trec_eval).
-- Negative levels (pooled but unjudged) have gain 0 under every profile.
with levels as (
    select campaign_id, topic_id, level
    from topic_levels
),

builtin as (
    select
        levels.campaign_id,
        profiles.profile,
        levels.topic_id,
        levels.level,
        case
            when levels.level <= 0 then 0.0
            when profiles.profile = 'exp' then pow(2.0, levels.level) - 1
            else levels.level::double
        end as gain
    from levels
    cross join (values ('linear'), ('exp')) as profiles (profile)
),

explicit_profiles as (
    select distinct campaign_id, profile
    from gain_profiles
),

explicit as (
    select
        levels.campaign_id,
        explicit_profiles.profile,
        levels.topic_id,
        levels.level,
        coalesce(
            topic_gain.gain,
            all_topics_gain.gain,
            case when levels.level <= 0 then 0.0 else levels.level::double end
        ) as gain
    from levels
    inner join explicit_profiles on levels.campaign_id = explicit_profiles.campaign_id
    left join gain_profiles as topic_gain
        on
            topic_gain.campaign_id = levels.campaign_id
            and topic_gain.profile = explicit_profiles.profile
            and topic_gain.topic_id = levels.topic_id
            and topic_gain.level = levels.level
    left join gain_profiles as all_topics_gain
        on
            all_topics_gain.campaign_id = levels.campaign_id
            and all_topics_gain.profile = explicit_profiles.profile
            and all_topics_gain.topic_id = ''
            and all_topics_gain.level = levels.level
    where levels.level >= 0
)

select campaign_id, profile, topic_id, level, gain from builtin
union all
select campaign_id, profile, topic_id, level, gain from explicit
