-- reads: evaluation_gains, evaluation_ideal_gains, evaluation_ranks, evaluation_topics
-- produces: evaluation_relevant_ranks (profile, run_id, topic_id, rank, level, gain,
--           relevant_so_far, gain_so_far, ideal_gain_so_far)
-- grain: profile, run_id, topic_id, rank
-- params: $profiles
-- evaluation_relevant_ranks: every retrieved document at level >= 1 of every ranked list, under
-- every gain profile the evaluation's measures use, with the running values the blended-ratio
-- measures (Q, O, P, P+, R-measure, NCU, EBR) are made of: relevant_so_far = C(r), the
-- documents at level >= 1 in the top r; gain_so_far = cg(r); ideal_gain_so_far = cg*(r), the
-- ideal list's cumulative gain at min(r, R). Running values at rank r do not depend on what
-- lies below r, so a measure truncating the list at l reads the rows with rank <= l.
-- Parameters: $profiles. Reference: docs/adhoc-measures.md sections 0 and 3 (NTCIREVAL count(r)).
with relevant as (
    select
        evaluation_gains.profile,
        evaluation_ranks.run_id,
        evaluation_ranks.topic_id,
        evaluation_ranks.rank,
        evaluation_ranks.level,
        evaluation_gains.gain
    from evaluation_ranks
    inner join evaluation_gains
        on
            evaluation_ranks.topic_id = evaluation_gains.topic_id
            and evaluation_ranks.level = evaluation_gains.level
    where evaluation_ranks.level >= 1 and list_contains($profiles, evaluation_gains.profile)
),

running as (
    select
        profile,
        run_id,
        topic_id,
        rank,
        level,
        gain,
        row_number() over prefix as relevant_so_far,
        sum(gain) over prefix as gain_so_far
    from relevant
    window prefix as (
        partition by profile, run_id, topic_id
        order by rank
        rows between unbounded preceding and current row
    )
)

select
    running.profile,
    running.run_id,
    running.topic_id,
    running.rank,
    running.level,
    running.gain,
    running.relevant_so_far,
    running.gain_so_far,
    evaluation_ideal_gains.ideal_gain_so_far
from running
inner join evaluation_topics
    on running.topic_id = evaluation_topics.topic_id and evaluation_topics.rel = 1
inner join evaluation_ideal_gains
    on
        running.profile = evaluation_ideal_gains.profile
        and running.topic_id = evaluation_ideal_gains.topic_id
        and least(running.rank, evaluation_topics.num_rel) = evaluation_ideal_gains.ideal_rank
