-- reads: input_fields
-- produces: intent_input (line_number, is_blank, field_count, topic_id, intent_id,
--           probability_text, probability, intent_type)
-- grain: line_number
-- params: none
-- intent_rows: one row per intents line: topic, intent, Pr(i|q) and type, typed (null if bad).
-- Reads: input_fields(line_number, is_blank, fields).
-- Layouts: NTCIR Iprob <topic> <intent> <prob>; DINprob <topic> <intent> <prob> <inf|nav>
-- (a missing 4th field means inf). Probabilities are used as given (NTCIREVAL does not
-- renormalise). Reference: docs/input-files.md section 6.2.
select
    line_number,
    is_blank,
    len(fields) as field_count,
    fields[1] as topic_id,
    fields[2] as intent_id,
    fields[3] as probability_text,
    decimal_value(fields[3]) as probability,
    case when len(fields) >= 4 then fields[4] else 'inf' end as intent_type
from input_fields
