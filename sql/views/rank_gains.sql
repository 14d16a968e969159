-- reads: qrels_by_set, ranked_entries
-- produces: rank_gains (campaign_id, judgment_set, run_id, topic_id, ordering, rank, doc_id, score, level,
--           is_judged, is_relevant, gain, relevant_so_far, gain_so_far)
-- grain: campaign_id, judgment_set, run_id, topic_id, ordering, rank
-- params: none
-- rank_gains: one row per (campaign_id, run_id, topic_id, ordering, rank) of every ranked list:
-- the document, its judgment and the running counts metrics are made of.
-- Reads: ranked_entries, qrels (ad hoc judgments, intent_id = ''), under each of the campaign's
-- judgment sets (those qrels holds): filter on judgment_set = 'official' for the official qrels.
-- level: the qrels level; null when the document is not in the pool (trec_eval -1);
-- negative when pooled but unjudged (trec_eval -2). gain: linear (level, 0 if not positive).
-- is_relevant: level >= 1 (the default threshold; measures with rel=k recompute).
-- relevant_so_far = C(rank), gain_so_far = cg(rank) (docs/adhoc-measures.md section 0).
with campaign_sets as (
    select distinct campaign_id, judgment_set
    from qrels_by_set
),

labelled as (
    select
        ranked_entries.campaign_id,
        campaign_sets.judgment_set,
        ranked_entries.run_id,
        ranked_entries.topic_id,
        ranked_entries.ordering,
        ranked_entries.rank,
        ranked_entries.doc_id,
        ranked_entries.score,
        qrels_by_set.level
    from ranked_entries
    inner join campaign_sets on ranked_entries.campaign_id = campaign_sets.campaign_id
    left join qrels_by_set
        on
            ranked_entries.campaign_id = qrels_by_set.campaign_id
            and campaign_sets.judgment_set = qrels_by_set.judgment_set
            and ranked_entries.topic_id = qrels_by_set.topic_id
            and ranked_entries.doc_id = qrels_by_set.doc_id
            and qrels_by_set.intent_id = ''
)

select
    campaign_id,
    judgment_set,
    run_id,
    topic_id,
    ordering,
    rank,
    doc_id,
    score,
    level,
    coalesce(level >= 0, false) as is_judged,
    coalesce(level >= 1, false) as is_relevant,
    greatest(coalesce(level, 0), 0)::double as gain,
    count(*) filter (where level >= 1) over running as relevant_so_far,
    sum(greatest(coalesce(level, 0), 0)::double) over running as gain_so_far
from labelled
window running as (
    partition by campaign_id, judgment_set, run_id, topic_id, ordering
    order by rank
    rows between unbounded preceding and current row
)
