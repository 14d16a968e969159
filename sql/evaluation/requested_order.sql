-- reads: none
-- produces: requested_order (measure, position, storable)
-- grain: measure
-- params: none
-- requested_order: the measures of an evaluation in the order they were asked for (position
-- from 0), and whether their values are numbers (stored) or text (RelString). Declared here;
-- its rows come from Python (pyeval/core/evaluation.py, from the request).
select
    ''::varchar as measure,
    0::integer as position,
    true as storable
where false
