-- reads: input_fields
-- produces: qrels_input (line_number, is_blank, field_count, topic_id, intent_id, doc_id,
--           level_text, level)
-- grain: line_number
-- params: $topic_field, $intent_field, $doc_field, $level_field, $intent_zero_is_none,
--         $level_prefix
-- qrels_rows: one row per qrels line: its judgment, typed, or null where a field is bad.
-- Reads: input_fields(line_number, is_blank, fields).
-- Parameters (the layout of the format, from pyeval.loaders.qrels.QRELS_LAYOUTS):
--   $topic_field, $intent_field (0: ad hoc, intent_id is ''), $doc_field, $level_field
--   $level_prefix   '' (TREC: an integer) or 'L' (NTCIR: L<k>)
--   $intent_zero_is_none  true for NTCIR Dqrels: intent 0 marks "relevant to no intent"
-- Reference: docs/input-files.md sections 2 (TREC), 5 (TREC diversity), 6.1 and 6.3 (NTCIR).
with fields_named as (
    select
        line_number,
        is_blank,
        len(fields) as field_count,
        fields[$topic_field] as topic_id,
        case when $intent_field = 0 then '' else fields[$intent_field] end as intent_id,
        fields[$doc_field] as doc_id,
        fields[$level_field] as level_text
    from input_fields
)

select
    line_number,
    is_blank,
    field_count,
    topic_id,
    case when $intent_zero_is_none and intent_id = '0' then '' else intent_id end as intent_id,
    doc_id,
    level_text,
    case
        when $level_prefix = '' then try_cast(integer_value(level_text) as integer)
        when $level_prefix = 'L' and regexp_full_match(level_text, 'L[0-9]+')
            then try_cast(level_text[2:] as integer)
    end as level
from fields_named
