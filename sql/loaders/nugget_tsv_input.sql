-- reads: rag_fields
-- produces: nugget_input (line_number, field_count, topic_id, nugget_number, nugget_id, text, importance, creator)
-- grain: line_number, nugget_number
-- params: $topic_field, $id_field, $text_field, $importance_field, $creator_field, $creator
-- nugget_tsv_input: one row per data line of a nuggets TSV file (header `topic_id [nugget_id] text
-- importance [creator]`, columns in any order; docs/rag.md "Formats"), fields trimmed. Each
-- $..._field is the column's 1-based field (0: the file has no such column). nugget_number: the
-- nugget's place among its topic's lines, in file order; nugget_id: the file's, else that number;
-- creator: the file's, else $creator.
select
    line_number,
    len(fields) as field_count,
    trim(fields[$topic_field]) as topic_id,
    row_number() over (partition by trim(fields[$topic_field]) order by line_number)::integer as nugget_number,
    case
        when $id_field > 0 then trim(fields[$id_field])
        else (row_number() over (partition by trim(fields[$topic_field]) order by line_number))::varchar
    end as nugget_id,
    trim(fields[$text_field]) as text,
    trim(fields[$importance_field]) as importance,
    case when $creator_field > 0 then trim(fields[$creator_field]) else $creator::varchar end as creator
from rag_fields
