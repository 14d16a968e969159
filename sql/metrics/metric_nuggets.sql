-- reads: evaluation_nugget_citations, evaluation_nugget_labels, evaluation_nugget_pairs, evaluation_nugget_sentences, requested_measures
-- produces: metric_nuggets (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_nuggets: the measures of generated answers per (run_id, topic_id, measure), for every
-- scored pair of evaluation_nugget_pairs (an unanswered topic scores 0 on each):
--   VitalScore, StrictVitalScore, AllScore, StrictAllScore   nuggetizer's four scores: the credit
--       of the topic's vital (or all) nuggets in the assignment set's bank, support 1,
--       partial_support 0.5 (strict: 0), not_support 0, over their number; 0 without such nuggets
--       (nuggetizer 0.0.5 calculate_nugget_scores, value for value in binary64: from the counts of
--       each importance and label, the numerator an exact multiple of 0.5, one division); the
--       denominators are the topic's nuggets in the bank (evaluation_nugget_pairs), a nugget
--       without a label counting as not_support.
--   WeightedScore(partial_weight, vital_weight, okay_weight)  sum w_i l_i / sum w_i, w_i the
--       nugget's importance weight, l_i its label's credit (partial_support: partial_weight).
--   CitationPrecision(partial_weight, average)  citation support credit (full 1, partial
--       partial_weight, none or unjudged 0): average 'citation' over the answer's citations,
--       'sentence' the mean over its cited sentences of each one's credit over its citations;
--       0 without a citation (Thakur et al., arXiv 2504.15205, weighted precision).
--   CitationRecall(partial_weight)  over the answer's sentences, each one's best citation credit
--       (0 without a citation); 0 without a sentence (arXiv 2504.15205, weighted recall).
--   AnswerLength  the answer's response_length in words.
--   CitationsPerSentence  the answer's citations over its sentences (0 without a sentence).
-- Reads: evaluation_nugget_pairs, evaluation_nugget_labels, evaluation_nugget_sentences,
--        evaluation_nugget_citations, requested_measures(measure, kind, partial_weight,
--        vital_weight, okay_weight, average). The nugget scores combine counts and the citation
--        sums are ordered, so a value does not depend on DuckDB's threads. Conventions: docs/rag.md "Measures".
-- Reference: nuggetizer 0.0.5 (castorini) core/metrics.py calculate_nugget_scores; Pradeep et al.,
-- arXiv 2411.09607 and 2504.15068; Thakur et al., arXiv 2504.15205 (support evaluation).
with label_counts as (
    select
        run_id,
        topic_id,
        count(*) filter (where importance = 'vital' and label = 'support') as vital_support,
        count(*) filter (where importance = 'vital' and label = 'partial_support') as vital_partial,
        count(*) filter (where importance = 'okay' and label = 'support') as okay_support,
        count(*) filter (where importance = 'okay' and label = 'partial_support') as okay_partial
    from evaluation_nugget_labels
    group by run_id, topic_id
),

nugget_counts as (
    select
        evaluation_nugget_pairs.run_id,
        evaluation_nugget_pairs.topic_id,
        evaluation_nugget_pairs.vital_nuggets as vital,
        coalesce(label_counts.vital_support, 0) as vital_support,
        coalesce(label_counts.vital_partial, 0) as vital_partial,
        evaluation_nugget_pairs.okay_nuggets as okay,
        coalesce(label_counts.okay_support, 0) as okay_support,
        coalesce(label_counts.okay_partial, 0) as okay_partial
    from evaluation_nugget_pairs
    left join label_counts
        on
            evaluation_nugget_pairs.run_id = label_counts.run_id
            and evaluation_nugget_pairs.topic_id = label_counts.topic_id
),

citation_credit as (
    select
        evaluation_nugget_citations.run_id,
        evaluation_nugget_citations.topic_id,
        evaluation_nugget_citations.sentence_number,
        evaluation_nugget_citations.citation_number,
        requested_measures.measure,
        case evaluation_nugget_citations.label
            when 'full' then 1.0
            when 'partial' then requested_measures.partial_weight
            else 0.0
        end::double as credit
    from evaluation_nugget_citations
    cross join requested_measures
    where requested_measures.kind in ('CitationPrecision', 'CitationRecall')
),

sentence_credit as (
    select
        run_id,
        topic_id,
        sentence_number,
        measure,
        sum(credit order by citation_number) as credit,
        count(*) as citations,
        max(credit) as best
    from citation_credit
    group by run_id, topic_id, sentence_number, measure
),

answer_credit as (
    select
        run_id,
        topic_id,
        measure,
        sum(credit order by sentence_number) as credit,
        sum(citations) as citations,
        favg(credit / citations order by sentence_number) as sentence_precision,
        sum(best order by sentence_number) as best
    from sentence_credit
    group by run_id, topic_id, measure
),

sentence_counts as (
    select
        run_id,
        topic_id,
        count(*) as sentences
    from evaluation_nugget_sentences
    group by run_id, topic_id
),

citation_counts as (
    select
        run_id,
        topic_id,
        count(*) as citations
    from evaluation_nugget_citations
    group by run_id, topic_id
)

select
    evaluation_nugget_pairs.run_id,
    evaluation_nugget_pairs.topic_id,
    requested_measures.measure,
    case requested_measures.kind
        when 'VitalScore'
            then coalesce(
                (nugget_counts.vital_support + 0.5 * nugget_counts.vital_partial) / nullif(nugget_counts.vital, 0), 0
            )
        when 'StrictVitalScore' then coalesce(nugget_counts.vital_support / nullif(nugget_counts.vital, 0), 0)
        when 'AllScore'
            then coalesce(
                (
                    nugget_counts.vital_support + nugget_counts.okay_support
                    + 0.5 * (nugget_counts.vital_partial + nugget_counts.okay_partial)
                ) / nullif(nugget_counts.vital + nugget_counts.okay, 0),
                0
            )
        when 'StrictAllScore'
            then coalesce(
                (nugget_counts.vital_support + nugget_counts.okay_support)
                / nullif(nugget_counts.vital + nugget_counts.okay, 0),
                0
            )
        when 'WeightedScore'
            then coalesce(
                (
                    requested_measures.vital_weight
                    * (nugget_counts.vital_support + requested_measures.partial_weight * nugget_counts.vital_partial)
                    + requested_measures.okay_weight
                    * (nugget_counts.okay_support + requested_measures.partial_weight * nugget_counts.okay_partial)
                ) / nullif(
                    requested_measures.vital_weight * nugget_counts.vital
                    + requested_measures.okay_weight * nugget_counts.okay,
                    0
                ),
                0
            )
        when 'CitationPrecision'
            then case requested_measures.average
                when 'sentence' then coalesce(answer_credit.sentence_precision, 0)
                else coalesce(answer_credit.credit / nullif(answer_credit.citations, 0), 0)
            end
        when 'CitationRecall' then coalesce(answer_credit.best / nullif(sentence_counts.sentences, 0), 0)
        when 'AnswerLength' then coalesce(evaluation_nugget_pairs.response_length, 0)
        when 'CitationsPerSentence'
            then coalesce(citation_counts.citations / nullif(sentence_counts.sentences, 0), 0)
        else error('metric_nuggets: no formula for measure kind ' || requested_measures.kind)
    end::double as value
from evaluation_nugget_pairs
cross join requested_measures
left join nugget_counts
    on
        evaluation_nugget_pairs.run_id = nugget_counts.run_id
        and evaluation_nugget_pairs.topic_id = nugget_counts.topic_id
left join answer_credit
    on
        evaluation_nugget_pairs.run_id = answer_credit.run_id
        and evaluation_nugget_pairs.topic_id = answer_credit.topic_id
        and requested_measures.measure = answer_credit.measure
left join sentence_counts
    on
        evaluation_nugget_pairs.run_id = sentence_counts.run_id
        and evaluation_nugget_pairs.topic_id = sentence_counts.topic_id
left join citation_counts
    on
        evaluation_nugget_pairs.run_id = citation_counts.run_id
        and evaluation_nugget_pairs.topic_id = citation_counts.topic_id
