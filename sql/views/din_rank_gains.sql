-- reads: intent_gains, intent_weights, ranked_entries
-- produces: din_rank_gains (campaign_id, judgment_set, probs, profile, run_id, topic_id, ordering, rank, doc_id,
--           global_gain, din_gain)
-- grain: campaign_id, judgment_set, probs, profile, run_id, topic_id, ordering, rank
-- params: none
-- din_rank_gains: one row per (campaign_id, probs, profile, run_id, topic_id, ordering, rank) of
-- every ranked document judged for at least one listed intent: its global gain GG(r) and its
-- DIN global gain
--   GG_DIN(r) = sum over informational i of Pr(i|q) g_i(r)
--             + sum over navigational j of isnew_j(r) Pr(j|q) g_j(r),
-- isnew_j(r) = 1 when no document at ranks 1..r-1 is relevant (level >= 1, any level) to j. A
-- redundant document of a navigational intent keeps its other gains; only that intent's part
-- is dropped. The ideal list stays the global one (global_ideal_gains).
-- Reference: docs/diversity-measures.md section 4 (Sakai, IPSJ JIP 2013; NTCIREVAL dinlabel).
with judged as (
    select
        intent_gains.campaign_id,
        intent_gains.judgment_set,
        intent_weights.probs,
        intent_gains.profile,
        intent_gains.topic_id,
        intent_gains.intent_id,
        intent_gains.doc_id,
        intent_gains.level,
        intent_gains.gain,
        intent_weights.probability,
        intent_weights.intent_type
    from intent_gains
    inner join intent_weights
        on
            intent_gains.campaign_id = intent_weights.campaign_id
            and intent_gains.judgment_set = intent_weights.judgment_set
            and intent_gains.topic_id = intent_weights.topic_id
            and intent_gains.intent_id = intent_weights.intent_id
),

ranked as (
    select
        ranked_entries.campaign_id,
        judged.judgment_set,
        judged.probs,
        judged.profile,
        ranked_entries.run_id,
        ranked_entries.topic_id,
        ranked_entries.ordering,
        ranked_entries.rank,
        ranked_entries.doc_id,
        judged.gain,
        judged.probability,
        judged.intent_type,
        min(case when judged.level >= 1 then ranked_entries.rank end) over (
            partition by
                ranked_entries.campaign_id, judged.judgment_set, judged.probs, judged.profile, ranked_entries.run_id,
                ranked_entries.topic_id, ranked_entries.ordering, judged.intent_id
        ) as first_relevant_rank
    from ranked_entries
    inner join judged
        on
            ranked_entries.campaign_id = judged.campaign_id
            and ranked_entries.topic_id = judged.topic_id
            and ranked_entries.doc_id = judged.doc_id
)

select
    campaign_id,
    judgment_set,
    probs,
    profile,
    run_id,
    topic_id,
    ordering,
    rank,
    doc_id,
    sum(probability * gain) as global_gain,
    coalesce(
        sum(probability * gain) filter (
            where intent_type = 'inf' or rank = first_relevant_rank
        ),
        0.0
    ) as din_gain
from ranked
group by campaign_id, judgment_set, probs, profile, run_id, topic_id, ordering, rank, doc_id
