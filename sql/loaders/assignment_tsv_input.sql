-- reads: rag_fields
-- produces: assignment_input (line_number, problem, run_id, topic_id, nugget_position, nugget_text, nugget_id, importance, label, assessor)
-- grain: line_number, nugget_position
-- params: $run_field, $topic_field, $nugget_field, $label_field, $assessor_field, $field_count, $header
-- assignment_tsv_input: one row per data line of an assignments TSV file (header `run_id topic_id
-- nugget_id label [assessor]`, columns in any order; docs/rag.md "Formats"), fields trimmed; the
-- nugget named by its id in the bank. assessor: the file's (null when empty or absent: assignment_resolved.sql gives `--judge`). problem: a line
-- without the header's $field_count fields, or without a run, topic or nugget, else null.
select
    line_number,
    case
        when len(fields) <> $field_count
            then 'expected ' || $field_count || ' fields (' || $header || '), found ' || len(fields)
        when trim(fields[$run_field]) = '' then 'no run_id'
        when trim(fields[$topic_field]) = '' then 'no topic_id'
        when trim(fields[$nugget_field]) = '' then 'no nugget_id'
    end as problem,
    trim(fields[$run_field]) as run_id,
    trim(fields[$topic_field]) as topic_id,
    1 as nugget_position,
    null::varchar as nugget_text,
    trim(fields[$nugget_field]) as nugget_id,
    null::varchar as importance,
    trim(fields[$label_field]) as label,
    case when $assessor_field > 0 then nullif(trim(fields[$assessor_field]), '') end as assessor
from rag_fields
