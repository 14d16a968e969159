-- reads: none
-- produces: evaluation_values (run_id, topic_id, measure, value, value_text)
-- grain: run_id, topic_id, measure
-- params: none
-- evaluation_values: the per-topic values an evaluation computed, one row per (run, topic,
-- measure); text-valued measures (RelString) in value_text. Declared here, made empty (this
-- select) by the executor (pyeval/core/stages.py), and filled by the metric families
-- (sql/metrics/) and the Python family drivers (pyeval/drivers/), whose rows come from Python.
select
    ''::varchar as run_id,
    ''::varchar as topic_id,
    ''::varchar as measure,
    0.0::double as value,
    ''::varchar as value_text
where false
