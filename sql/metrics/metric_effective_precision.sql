-- reads: evaluation_intent_ranks, evaluation_intents, evaluation_pairs, requested_measures
-- produces: metric_effective_precision (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_effective_precision: precision of a diversified list per (run_id, topic_id, measure):
-- EfP@l and PAny@l.
-- Reads: evaluation_pairs, evaluation_intents (intent types), evaluation_intent_ranks (the
-- per-intent levels of the ranked documents), requested_measures(measure, kind, cutoff).
-- References: Sakai, IPSJ JIP 2013 (Ef-P, the concordance test's relevance gold standard);
-- Sakai & Dou, SIGIR 2013 (precision with "relevant to at least one intent");
-- docs/adhoc-measures.md section 4.7.
--   EfP@l   documents in the top l that are effectively relevant to at least one listed intent,
--           over l: relevant (level >= 1) to an informational intent, or the first document in
--           the list relevant to a navigational intent (later ones are redundant); JIP Fig. 1:
--           3/5 = 0.6
--   PAny@l  documents in the top l relevant to at least one listed intent, over l
-- Both divide by l even for a shorter list (as P@l); intent probabilities play no part. A kind
-- without a formula here is an error, never another kind's formula.
with requested as (
    select
        measure,
        case
            when kind in ('EfP', 'PAny') then kind
            else error('metric_effective_precision: no formula for measure kind ' || kind)
        end as kind,
        cutoff
    from requested_measures
),

types as (
    select distinct
        topic_id,
        intent_id,
        intent_type
    from evaluation_intents
),

relevant as (
    select
        evaluation_intent_ranks.run_id,
        evaluation_intent_ranks.topic_id,
        evaluation_intent_ranks.rank,
        types.intent_type,
        row_number() over (
            partition by
                evaluation_intent_ranks.run_id, evaluation_intent_ranks.topic_id,
                evaluation_intent_ranks.intent_id
            order by evaluation_intent_ranks.rank
        ) as nth
    from evaluation_intent_ranks
    inner join types
        on
            evaluation_intent_ranks.topic_id = types.topic_id
            and evaluation_intent_ranks.intent_id = types.intent_id
    where evaluation_intent_ranks.level >= 1
),

ranks as (
    select
        run_id,
        topic_id,
        rank,
        bool_or(intent_type = 'inf' or nth = 1) as effective
    from relevant
    group by run_id, topic_id, rank
)

select
    evaluation_pairs.run_id,
    evaluation_pairs.topic_id,
    requested.measure,
    (
        count(ranks.rank) filter (where requested.kind = 'PAny' or ranks.effective)
        / requested.cutoff::double
    )::double as value
from evaluation_pairs
cross join requested
left join ranks
    on
        evaluation_pairs.run_id = ranks.run_id
        and evaluation_pairs.topic_id = ranks.topic_id
        and ranks.rank <= requested.cutoff
group by evaluation_pairs.run_id, evaluation_pairs.topic_id, requested.measure, requested.kind, requested.cutoff
