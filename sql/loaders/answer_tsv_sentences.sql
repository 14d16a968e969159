-- reads: rag_fields
-- produces: answer_sentence_input (line_number, problem, run_id, topic_id, sentence_number, text, citations, reference_count)
-- grain: line_number, sentence_number
-- params: $run_field, $topic_field, $sentence_field, $text_field, $citations_field, $field_count, $header
-- answer_tsv_sentences: one row per data line of an answers TSV file (header `run_id topic_id
-- sentence_number text [citations]`, columns in any order; docs/rag.md "Formats"): one sentence
-- of an answer, its citations the documents of the citations field separated by spaces (in
-- order; none when empty or absent). Each $..._field is the column's 1-based field (0: absent).
-- problem: a line without the header's $field_count fields, no run or topic (or one holding a
-- control character, sql/loaders/rag_macros.sql), a sentence number
-- that is not a positive integer (integer_value, sql/loaders/macros.sql), else null.
-- reference_count: null (the references are the cited documents, answer_tsv_references.sql).
select
    line_number,
    case
        when len(fields) <> $field_count
            then 'expected ' || $field_count || ' fields (' || $header || '), found ' || len(fields)
        when trim(fields[$run_field]) = '' then 'no run_id'
        when trim(fields[$topic_field]) = '' then 'no topic_id'
        when control_problem('run_id', trim(fields[$run_field])) is not null
            then control_problem('run_id', trim(fields[$run_field]))
        when control_problem('topic_id', trim(fields[$topic_field])) is not null
            then control_problem('topic_id', trim(fields[$topic_field]))
        when coalesce(integer_value(trim(fields[$sentence_field])), 0) < 1
            then 'sentence_number ''' || trim(fields[$sentence_field]) || ''' is not a positive integer'
    end as problem,
    trim(fields[$run_field]) as run_id,
    trim(fields[$topic_field]) as topic_id,
    try_cast(integer_value(trim(fields[$sentence_field])) as integer) as sentence_number,
    trim(fields[$text_field]) as text,
    case
        when $citations_field > 0 and trim(fields[$citations_field]) <> ''
            then string_split_regex(trim(fields[$citations_field]), '[ ]+')
        else []
    end as citations,
    null::bigint as reference_count
from rag_fields
