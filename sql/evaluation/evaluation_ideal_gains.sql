-- reads: evaluation_gains
-- produces: evaluation_ideal_gains (profile, topic_id, ideal_rank, gain, ideal_gain_so_far)
-- grain: profile, topic_id, ideal_rank
-- params: $profiles
-- evaluation_ideal_gains: the ideal list of every topic under every gain profile the
-- evaluation's measures use: the topic's R relevant documents (level >= 1), gains descending,
-- with its gain g*(r) and cumulative ideal gain cg*(r) at each ideal rank r = 1..R.
-- Documents of one gain are interchangeable (only gains matter), so the list is built per
-- distinct gain. Measures that count positive gains only read its prefix `gain > 0` (the same
-- ranks: gains descend). Past rank R, g*(r) = 0 and cg*(r) = cg*(R).
-- Reads: evaluation_gains. Parameters: $profiles (the gain profiles requested).
-- Reference: docs/adhoc-measures.md section 0 (ideal list); Sakai, AIRS 2005 (cg*).
with gain_groups as (
    select
        profile,
        topic_id,
        gain,
        sum(judgments)::bigint as documents
    from evaluation_gains
    where level >= 1 and list_contains($profiles, profile)
    group by profile, topic_id, gain
),

ranked_groups as (
    select
        profile,
        topic_id,
        gain,
        documents,
        sum(documents) over (
            partition by profile, topic_id
            order by gain desc
            rows between unbounded preceding and current row
        )::bigint as last_rank
    from gain_groups
),

positions as (
    select
        profile,
        topic_id,
        gain,
        unnest(range(last_rank - documents + 1, last_rank + 1)) as ideal_rank
    from ranked_groups
)

select
    profile,
    topic_id,
    ideal_rank,
    gain,
    sum(gain) over (
        partition by profile, topic_id
        order by ideal_rank
        rows between unbounded preceding and current row
    ) as ideal_gain_so_far
from positions
