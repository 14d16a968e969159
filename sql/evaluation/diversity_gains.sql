-- reads: evaluation_gain_codes, evaluation_levels
-- produces: evaluation_gains (profile, topic_id, level, gain, judgments)
-- grain: profile, topic_id, level
-- params: $profile
-- diversity_gains (temp table evaluation_gains of a D- or DIN-staging): the staged profile's
-- gain of each level code (the global gain it stands for) and its judged documents.
select
    $profile as profile,
    evaluation_levels.topic_id,
    evaluation_levels.level,
    evaluation_gain_codes.gain,
    evaluation_levels.judgments
from evaluation_levels
inner join evaluation_gain_codes
    on
        evaluation_levels.topic_id = evaluation_gain_codes.topic_id
        and evaluation_levels.level = evaluation_gain_codes.level
