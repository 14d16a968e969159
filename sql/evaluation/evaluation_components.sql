-- reads: none
-- produces: evaluation_components (measure, role, run_id, topic_id, intent_id, value)
-- grain: measure, role, run_id, topic_id, intent_id
-- params: none
-- evaluation_components: the values composite measures combine, one row per (measure, role,
-- run_id, topic_id, intent_id): for I-rec, IA and P+Q the per-intent values of their ad hoc
-- component (intent_id the intent; role 'all', or 'inf' / 'nav' for the component of that intent
-- type), for D#, DIN# and P+Q# the topic's I-rec (role 'irec') and D-measure (role 'measure'),
-- intent_id ''. Staged empty; pyeval/diversity/ fills it before a composite family runs.
select
    ''::varchar as measure,
    ''::varchar as role,
    ''::varchar as run_id,
    ''::varchar as topic_id,
    ''::varchar as intent_id,
    0.0::double as value
where false
