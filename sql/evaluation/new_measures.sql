-- reads: none
-- produces: new_measures (measure, measure_name, family, parameters, aggregate, gain_profile)
-- grain: measure
-- params: none
-- new_measures: what each stored measure's canonical name meant, for the evaluation being
-- stored (inserted into evaluation_measures). Declared here; its rows come from Python
-- (pyeval/core/evaluation.py, from the measures' declarations).
select
    ''::varchar as measure,
    ''::varchar as measure_name,
    ''::varchar as family,
    ''::varchar as parameters,
    ''::varchar as aggregate,
    ''::varchar as gain_profile
where false
