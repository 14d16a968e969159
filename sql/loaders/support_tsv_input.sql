-- reads: rag_fields
-- produces: support_input (line_number, problem, run_id, topic_id, sentence_number, doc_id, label, assessor)
-- grain: line_number
-- params: $run_field, $topic_field, $sentence_field, $doc_field, $label_field, $assessor_field, $assessor, $field_count, $header
-- support_tsv_input: one row per data line of a citation support TSV file (header `run_id topic_id
-- sentence_number doc_id label [assessor]`, columns in any order; docs/rag.md "Formats"), fields
-- trimmed: does document doc_id, cited by that sentence of the run's answer to the topic, support
-- it (full, partial, none)? assessor: the file's, else (an empty or absent column) $assessor. problem: a line without the
-- header's $field_count fields, no run, topic or document, a sentence number that is not a
-- positive integer (integer_value, sql/loaders/macros.sql), else null.
select
    line_number,
    case
        when len(fields) <> $field_count
            then 'expected ' || $field_count || ' fields (' || $header || '), found ' || len(fields)
        when trim(fields[$run_field]) = '' then 'no run_id'
        when trim(fields[$topic_field]) = '' then 'no topic_id'
        when trim(fields[$doc_field]) = '' then 'no doc_id'
        when coalesce(integer_value(trim(fields[$sentence_field])), 0) < 1
            then 'sentence_number ''' || trim(fields[$sentence_field]) || ''' is not a positive integer'
    end as problem,
    trim(fields[$run_field]) as run_id,
    trim(fields[$topic_field]) as topic_id,
    try_cast(integer_value(trim(fields[$sentence_field])) as integer) as sentence_number,
    trim(fields[$doc_field]) as doc_id,
    trim(fields[$label_field]) as label,
    coalesce(case when $assessor_field > 0 then nullif(trim(fields[$assessor_field]), '') end, $assessor::varchar)
        as assessor
from rag_fields
