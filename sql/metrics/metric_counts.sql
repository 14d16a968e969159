-- reads: evaluation_pairs, evaluation_ranks, evaluation_topics, requested_measures
-- produces: metric_counts (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_counts: NumQ, NumRet (with rel: relevant retrieved), NumRel, NumNonRelJudgedRet per
-- (run_id, topic_id).
-- Grain: one row per (run_id, topic_id, measure). Reads: evaluation_pairs, evaluation_ranks,
-- evaluation_topics, requested_measures(measure, kind, rel).
-- Reference: trec_eval 10.0 m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c,
-- m_num_nonrel_judged_ret.c (R and N from form_res_rels.c).
with retrieved_counts as (
    select
        evaluation_ranks.run_id,
        evaluation_ranks.topic_id,
        requested_measures.measure,
        count(*) filter (where evaluation_ranks.level >= requested_measures.rel) as relevant_retrieved,
        count(*) filter (
            where evaluation_ranks.level >= 0 and evaluation_ranks.level < requested_measures.rel
        ) as nonrelevant_retrieved
    from evaluation_ranks
    cross join requested_measures
    where
        requested_measures.kind = 'NumNonRelJudgedRet'
        or (requested_measures.kind = 'NumRet' and requested_measures.rel is not null)
    group by evaluation_ranks.run_id, evaluation_ranks.topic_id, requested_measures.measure
)

select
    evaluation_pairs.run_id,
    evaluation_pairs.topic_id,
    requested_measures.measure,
    case requested_measures.kind
        when 'NumQ' then 1
        when 'NumRet'
            then case
                when requested_measures.rel is null then evaluation_pairs.num_ret
                else coalesce(retrieved_counts.relevant_retrieved, 0)
            end
        when 'NumRel' then evaluation_topics.num_rel
        when 'NumNonRelJudgedRet' then coalesce(retrieved_counts.nonrelevant_retrieved, 0)
        else error('metric_counts: no formula for measure kind ' || requested_measures.kind)
    end::double as value
from evaluation_pairs
cross join requested_measures
left join evaluation_topics
    on
        evaluation_pairs.topic_id = evaluation_topics.topic_id
        and coalesce(requested_measures.rel, 1) = evaluation_topics.rel
left join retrieved_counts
    on
        evaluation_pairs.run_id = retrieved_counts.run_id
        and evaluation_pairs.topic_id = retrieved_counts.topic_id
        and requested_measures.measure = retrieved_counts.measure
