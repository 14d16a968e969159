-- reads: evaluation_components, evaluation_intents, evaluation_pairs, requested_measures
-- produces: metric_intent_average (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_intent_average: measures that average per-intent values over a topic's intents, per
-- (run_id, topic_id, measure): IRec@l, IA_<X> (nDCG, Q, ERR, nERR, GAP, nGAP, AP), PplusQ@l.
-- Reads: evaluation_pairs, evaluation_intents, evaluation_components (the per-intent values of
-- each measure's component, computed on the intent's own levels and ideal list: pyeval/diversity),
-- requested_measures(measure, kind, probs, irec_denom, ntcireval).
-- References: Zhai, Cohen & Lafferty, SIGIR 2003 and NTCIREVAL irec (I-rec); Agrawal et al., WSDM
-- 2009 and NTCIREVAL D-NTCIR-IAeval (IA); Sakai, IPSJ JIP 2013 (P+Q); docs/diversity-measures.md
-- sections 2, 5 and 6.1.
--   IRec@l   sum over intents with a relevant document of Success_i@l / n+, n+ the intents with
--            a relevant document (irec_denom = 'relevant'; NTCIREVAL, ndeval), or over every
--            listed intent / n (irec_denom = 'listed')
--   IA_X     sum over intents of Pr(i|q) X_i (X_i = 0 for an intent without relevant documents;
--            probabilities as given or the probs variant, never renormalised)
--   PplusQ   sum over informational intents of Pr(i|q) Q_i@l + sum over navigational intents of
--            Pr(j|q) P+_j (component role 'inf' or 'nav': the values of the intent's type)
-- ntcireval: each per-intent value is rounded to 4 decimals first (NTCIREVAL's scripts combine
-- the printed values). Sums run in intent order (byte order of intent_id). A kind without a
-- formula here is an error, never another kind's formula.
with requested as (
    select
        measure,
        case
            when kind = 'IRec' or kind = 'PplusQ' or starts_with(kind, 'IA_') then kind
            else error('metric_intent_average: no formula for measure kind ' || kind)
        end as kind,
        coalesce(probs, 'given') as probs,
        irec_denom,
        coalesce(ntcireval, false) as ntcireval
    from requested_measures
),

intent_counts as (
    select
        probs,
        topic_id,
        count(*) as listed,
        count(*) filter (where num_rel > 0) as relevant
    from evaluation_intents
    group by probs, topic_id
),

weights as (
    select
        requested.measure,
        requested.ntcireval,
        evaluation_intents.topic_id,
        evaluation_intents.intent_id,
        evaluation_intents.intent_type,
        case
            when requested.kind <> 'IRec' then evaluation_intents.probability
            when requested.irec_denom = 'listed' then 1.0 / intent_counts.listed
            when evaluation_intents.num_rel > 0 then 1.0 / intent_counts.relevant
            else 0.0
        end as weight
    from requested
    inner join evaluation_intents on requested.probs = evaluation_intents.probs
    inner join intent_counts
        on
            evaluation_intents.probs = intent_counts.probs
            and evaluation_intents.topic_id = intent_counts.topic_id
),

terms as (
    select
        weights.measure,
        evaluation_components.run_id,
        weights.topic_id,
        weights.intent_id,
        weights.weight * case
            when weights.ntcireval then round(evaluation_components.value, 4)
            else evaluation_components.value
        end as term
    from weights
    inner join evaluation_components
        on
            weights.measure = evaluation_components.measure
            and weights.topic_id = evaluation_components.topic_id
            and weights.intent_id = evaluation_components.intent_id
            and (evaluation_components.role = 'all' or evaluation_components.role = weights.intent_type)
)

select
    evaluation_pairs.run_id,
    evaluation_pairs.topic_id,
    requested.measure,
    coalesce(sum(terms.term order by terms.intent_id), 0.0)::double as value
from evaluation_pairs
cross join requested
left join terms
    on
        requested.measure = terms.measure
        and evaluation_pairs.run_id = terms.run_id
        and evaluation_pairs.topic_id = terms.topic_id
group by evaluation_pairs.run_id, evaluation_pairs.topic_id, requested.measure
