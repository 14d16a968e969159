-- reads: evaluation_components, evaluation_pairs, requested_measures
-- produces: metric_sharp (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_sharp: the #-measures per (run_id, topic_id, measure): Dsharp_X@l, DINsharp_X@l,
-- PplusQsharp@l = gamma I-rec@l + (1 - gamma) M@l, M the D-measure D_X@l, the DIN-measure
-- DIN_X@l or P+Q@l.
-- Reads: evaluation_pairs, evaluation_components (role 'irec': the topic's IRec@l; role
-- 'measure': its M@l; computed first by pyeval/diversity), requested_measures(measure, gamma,
-- ntcireval).
-- References: Sakai et al., EVIA 2010 and Sakai & Song, SIGIR 2011 (D#); Sakai, IPSJ JIP 2013
-- (DIN#, P+Q#); NTCIREVAL D-NTCIR-eval, NEVIAPQ2sharpnev; docs/diversity-measures.md sections 3.3, 4
-- and 5. ntcireval: both parts rounded to 4 decimals first (NTCIREVAL combines the printed
-- values: 0.5 * 0.6667 + 0.5 * 0.2085 = 0.4376). D# lies in [0, 1] when l >= n+.
with requested as (
    select
        measure,
        gamma,
        coalesce(ntcireval, false) as ntcireval
    from requested_measures
),

parts as (
    select
        measure,
        run_id,
        topic_id,
        coalesce(max(value) filter (where role = 'irec'), 0.0) as irec,
        coalesce(max(value) filter (where role = 'measure'), 0.0) as part
    from evaluation_components
    group by measure, run_id, topic_id
)

select
    evaluation_pairs.run_id,
    evaluation_pairs.topic_id,
    requested.measure,
    case
        when requested.ntcireval
            then requested.gamma * round(coalesce(parts.irec, 0.0), 4)
            + (1 - requested.gamma) * round(coalesce(parts.part, 0.0), 4)
        else requested.gamma * coalesce(parts.irec, 0.0) + (1 - requested.gamma) * coalesce(parts.part, 0.0)
    end::double as value
from evaluation_pairs
cross join requested
left join parts
    on
        requested.measure = parts.measure
        and evaluation_pairs.run_id = parts.run_id
        and evaluation_pairs.topic_id = parts.topic_id
