-- reads: gain_profiles, intent_levels
-- produces: profile_gains (campaign_id, judgment_set, profile, topic_id, intent_id, level, gain, judged)
-- grain: campaign_id, judgment_set, profile, topic_id, intent_id, level
-- params: none
-- profile_gains: one row per (campaign_id, judgment_set, profile, topic_id, intent_id, level): the
-- gain of a level under each gain profile; the one definition of every profile's gains. Each
-- judgment set's levels are its own (docs/judgments.md).
-- Levels: every level a topic's qrels use for an intent (judged = true; intent_id = '': the ad
-- hoc judgments; a diversity intent: the per-intent gain g_i of docs/diversity-measures.md section
-- 1.3), and, for the ad hoc judgments only, the campaign's other positive levels and the levels a
-- stored profile lists (judged = false): NTCIREVAL's gmax ranges over those (gain_maxima).
-- intent_gain_values shows the judged rows. Per-topic rules ('adjust') count the judgments of
-- the same (topic, intent); a level the topic does not use has R(X) = 0, so gain X.
-- Built-in profiles (docs/adhoc-measures.md section 1.1; Sakai, AIRS 2005, section 4.5):
--   'linear' gain = level (trec_eval ndcg; NTCIREVAL -g 1:2:3...; Sakai's default "3:2:1" for
--            h = 3: gain(S)=3, gain(A)=2, gain(B)=1)
--   'exp'    gain = 2^level - 1 (Burges et al. 2005; Sakai & Song 2011)
--   'flat'   gain = 1 for every positive level ("1:1:1", binary relevance)
--   'steep'  levels 1, 2, 3 -> 1, 5, 10 ("10:5:1" for S:A:B); a higher level keeps gain = level,
--            as in a stored profile "1:5:10"
--   'adjust' per topic, from the default (linear) gains and the topic's R(X)/R
--            (docs/adhoc-measures.md section 1.2, a RECONSTRUCTION of Sakai's rule):
--            gain'(X) = gain(Y) + (gain(X) - gain(Y)) * (1 - R(X)/R) if 0 < R(X) < R, where Y is
--            the level below X (gain(0) = 0); else gain'(X) = gain(X). With linear gains this is
--            X - R(X)/R.
-- Explicit profiles (rows of gain_profiles) override single levels; unlisted levels keep
-- gain = level (trec_eval). Stored rows under a built-in name (only possible through raw SQL;
-- pyeval gains refuses the names) replace that built-in for their campaign.
-- Negative levels (pooled but unjudged) have gain 0 under every profile, built-in or explicit.
with adhoc_topics as (
    select distinct campaign_id, judgment_set, topic_id
    from intent_levels
    where intent_id = ''
),

campaign_sets as (
    select distinct campaign_id, judgment_set
    from intent_levels
),

-- positive levels gmax considers: the campaign's (every profile) and a stored profile's own
campaign_levels as (
    select distinct campaign_id, judgment_set, level, null::varchar as only_profile
    from intent_levels
    where intent_id = '' and level > 0
    union
    select distinct gain_profiles.campaign_id, campaign_sets.judgment_set, gain_profiles.level, gain_profiles.profile as only_profile
    from gain_profiles
    inner join campaign_sets on gain_profiles.campaign_id = campaign_sets.campaign_id
    where gain_profiles.level > 0
),

levels as (
    select
        campaign_id, judgment_set, topic_id, intent_id, level, judgments, true as judged,
        null::varchar as only_profile
    from intent_levels
    union all
    select
        adhoc_topics.campaign_id,
        adhoc_topics.judgment_set,
        adhoc_topics.topic_id,
        '' as intent_id,
        campaign_levels.level,
        0 as judgments,
        false as judged,
        campaign_levels.only_profile
    from adhoc_topics
    inner join campaign_levels
        on
            adhoc_topics.campaign_id = campaign_levels.campaign_id
            and adhoc_topics.judgment_set = campaign_levels.judgment_set
    where not exists (
        select 1
        from intent_levels
        where
            intent_levels.campaign_id = adhoc_topics.campaign_id
            and intent_levels.judgment_set = adhoc_topics.judgment_set
            and intent_levels.topic_id = adhoc_topics.topic_id
            and intent_levels.intent_id = ''
            and intent_levels.level = campaign_levels.level
    )
),

topic_relevant as (
    select campaign_id, judgment_set, topic_id, intent_id, sum(judgments) filter (where level > 0) as num_rel
    from intent_levels
    group by campaign_id, judgment_set, topic_id, intent_id
),

builtin_names as (
    select profile
    from (values ('linear'), ('exp'), ('flat'), ('steep'), ('adjust')) as names (profile)
),

explicit_profiles as (
    select distinct campaign_id, profile
    from gain_profiles
),

builtin as (
    select
        levels.campaign_id,
        levels.judgment_set,
        builtin_names.profile,
        levels.topic_id,
        levels.intent_id,
        levels.level,
        case
            when levels.level <= 0 then 0.0
            when builtin_names.profile = 'exp' then pow(2.0, levels.level) - 1
            when builtin_names.profile = 'flat' then 1.0
            when builtin_names.profile = 'steep'
                then case levels.level when 1 then 1.0 when 2 then 5.0 when 3 then 10.0
                    else levels.level::double end
            when
                builtin_names.profile = 'adjust'
                and levels.judgments < topic_relevant.num_rel
                then levels.level - levels.judgments / topic_relevant.num_rel::double
            else levels.level::double
        end as gain,
        levels.judged
    from levels
    cross join builtin_names
    left join topic_relevant
        on
            levels.campaign_id = topic_relevant.campaign_id
            and levels.judgment_set = topic_relevant.judgment_set
            and levels.topic_id = topic_relevant.topic_id
            and levels.intent_id = topic_relevant.intent_id
    where
        levels.only_profile is null
        and not exists (
            select 1
            from explicit_profiles
            where
                explicit_profiles.campaign_id = levels.campaign_id
                and explicit_profiles.profile = builtin_names.profile
        )
),

explicit as (
    select
        levels.campaign_id,
        levels.judgment_set,
        explicit_profiles.profile,
        levels.topic_id,
        levels.intent_id,
        levels.level,
        coalesce(
            topic_gain.gain,
            all_topics_gain.gain,
            case when levels.level <= 0 then 0.0 else levels.level::double end
        ) as gain,
        levels.judged
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
    where levels.only_profile is null or levels.only_profile = explicit_profiles.profile
)

select campaign_id, judgment_set, profile, topic_id, intent_id, level, gain, judged from builtin
union all
select campaign_id, judgment_set, profile, topic_id, intent_id, level, gain, judged from explicit
