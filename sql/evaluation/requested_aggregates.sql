-- reads: none
-- produces: requested_aggregates (measure, aggregate)
-- grain: measure
-- params: none
-- requested_aggregates: how sql/evaluation/means.sql combines each measure's per-topic values
-- ('mean', 'sum' or 'gmean': measures.base.MeasureDef.aggregate). Declared here; its rows come
-- from Python (pyeval/core/evaluation.py, means_into).
select
    ''::varchar as measure,
    ''::varchar as aggregate
where false
