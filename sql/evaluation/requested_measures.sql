-- reads: none
-- produces: requested_measures (measure, kind, <the parameters its family's measures declare>)
-- grain: measure
-- params: none
-- requested_measures: the measures a metric family computes (sql/metrics/ headers read it), one
-- row per measure: its canonical name, its kind (the formula: measures.base.MeasureDef.kind)
-- and one column per parameter any measure of the family declares (null where a measure has
-- none). Declared here; made by the executor (pyeval/core/stages.py) from the measures'
-- declarations, so its parameter columns are named at run time.
select *
from (select ''::varchar as measure, ''::varchar as kind) as requested
where false
