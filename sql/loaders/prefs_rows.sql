-- reads: input_fields
-- produces: prefs_input (line_number, is_blank, field_count, topic_id, jg, jsg, doc_id, level_text,
--           rel_level)
-- grain: line_number
-- params: $sub_group_field
-- prefs_rows: one row per line of a preference file, typed, or null where a field is bad.
-- Reads: input_fields(line_number, is_blank, fields).
-- Parameters: $sub_group_field (4: the prefs format "topic jg jsg docno rel_level";
--   0: a qrels file read as preferences, "topic jg docno rel_level", every line in sub-group '0').
-- Reference: trec_eval 10.0 get_prefs.c and get_qrels_prefs.c (rel_level read with atof; pyeval
-- requires a finite decimal number).
with fields_named as (
    select
        line_number,
        is_blank,
        len(fields) as field_count,
        fields[1] as topic_id,
        fields[2] as jg,
        case when $sub_group_field = 0 then '0' else fields[3] end as jsg,
        fields[case when $sub_group_field = 0 then 3 else 4 end] as doc_id,
        fields[case when $sub_group_field = 0 then 4 else 5 end] as level_text
    from input_fields
)

select
    line_number,
    is_blank,
    field_count,
    topic_id,
    jg,
    jsg,
    doc_id,
    level_text,
    finite_decimal_value(level_text) as rel_level
from fields_named
