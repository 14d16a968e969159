-- reads: answers, evaluation_measures, nugget_assignments, scores_by_set
-- produces: answer_scores_by_set (campaign_id, judgment_set, bank, run_id, topic_id, measure, value, answered,
--           evaluation_id, evaluated_at, higher_is_better)
-- grain: campaign_id, judgment_set, run_id, topic_id, measure
-- params: none
-- answer_scores_by_set: the per-topic values of the measures of generated answers (family nuggets:
-- VitalScore, AllScore, WeightedScore, CitationPrecision, ...; docs/rag.md) under every judgment
-- set, each with the nugget bank of its set (an assignment set names one bank; null for a set
-- that assigns no nugget: a citation support set) and whether the run answered the topic (an
-- unanswered topic scores 0: avg(value) over the answered rows is nuggetizer's
-- calculate_global_metrics).
-- Reads: scores_by_set (the current values), evaluation_measures (each value's family),
-- nugget_assignments (each set's bank), answers.
-- Portable SQL (DuckDB and PostgreSQL).
with set_banks as (
    select
        campaign_id,
        judgment_set,
        min(bank) as bank
    from nugget_assignments
    group by campaign_id, judgment_set
)

select
    scores_by_set.campaign_id,
    scores_by_set.judgment_set,
    set_banks.bank,
    scores_by_set.run_id,
    scores_by_set.topic_id,
    scores_by_set.measure,
    scores_by_set.value,
    exists (
        select 1
        from answers
        where
            answers.campaign_id = scores_by_set.campaign_id
            and answers.run_id = scores_by_set.run_id
            and answers.topic_id = scores_by_set.topic_id
    ) as answered,
    scores_by_set.evaluation_id,
    scores_by_set.evaluated_at,
    scores_by_set.higher_is_better
from scores_by_set
inner join evaluation_measures
    on
        scores_by_set.evaluation_id = evaluation_measures.evaluation_id
        and scores_by_set.measure = evaluation_measures.measure
left join set_banks
    on
        scores_by_set.campaign_id = set_banks.campaign_id
        and scores_by_set.judgment_set = set_banks.judgment_set
where evaluation_measures.family = 'nuggets'
