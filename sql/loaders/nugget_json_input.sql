-- reads: nugget_records
-- produces: nugget_input (line_number, field_count, topic_id, nugget_number, nugget_id, text, importance, creator)
-- grain: line_number, nugget_number
-- params: $creator
-- nugget_json_input: one row per nugget of nuggetizer's create output (nugget_json_records.sql;
-- of assign output: the nuggets of each topic's first line), numbered from 1 in its topic's list;
-- nuggetizer gives no ids, so the number is the id. creator: $creator (human or llm, `pyeval load nuggets --creator`).
-- field_count: null (a TSV file's; sql/loaders/nugget_problems.sql checks it).
select
    line_number,
    null::bigint as field_count,
    topic_id,
    nugget_number::integer as nugget_number,
    nugget_number::varchar as nugget_id,
    nugget.text,
    nugget.importance,
    $creator::varchar as creator
from (
    select
        line_number,
        topic_id,
        unnest(nuggets) as nugget,
        generate_subscripts(nuggets, 1) as nugget_number
    from nugget_records
    where is_first
)
