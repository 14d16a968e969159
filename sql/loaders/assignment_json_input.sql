-- reads: assignment_records
-- produces: assignment_input (line_number, problem, run_id, topic_id, nugget_position, nugget_text, nugget_id, importance, label, assessor)
-- grain: line_number, nugget_position
-- params: none
-- assignment_json_input: one row per nugget of the readable lines of nuggetizer's assign output
-- (assignment_json_records.sql): its place in the line's list, its text (which names it: the
-- loader finds the bank's nugget of that text, assignment_resolved.sql), importance and label
-- (nuggetizer's assignment). assessor: null (the file names none; assignment_resolved.sql gives
-- `--judge`).
select
    line_number,
    null::varchar as problem,
    run_id,
    topic_id,
    nugget_position::integer as nugget_position,
    nugget.text as nugget_text,
    null::varchar as nugget_id,
    nugget.importance,
    nugget.assignment as label,
    null::varchar as assessor
from (
    select
        line_number,
        run_id,
        topic_id,
        unnest(nuggets) as nugget,
        generate_subscripts(nuggets, 1) as nugget_position
    from assignment_records
    where problem is null
)
