-- reads: rag_lines
-- produces: assignment_records (line_number, problem, run_id, topic_id, query, answer_text, response_length, length_given, nuggets)
-- grain: line_number
-- params: none
-- assignment_json_records: one row per data line of nuggetizer's assign output in answers mode
-- (JSON lines `{"qid", "run_id", "query", "answer_text", "response_length", "nuggets": [{"text",
-- "importance", "assignment"}]}`, several runs per file; other keys, such as its reasoning
-- traces, are ignored), each parsed once by DuckDB's JSON reader. problem: what makes the line
-- unreadable (not a JSON object, no usable qid or run_id, no list of nuggets, a response_length
-- that is not a non-negative integer), else null.
with parsed as (
    select
        line_number,
        is_json_object(line) as is_object,
        try(from_json(
            line,
            '{"qid": "JSON", "run_id": "JSON", "query": "VARCHAR", "answer_text": "VARCHAR", "response_length": "JSON",
              "nuggets": [{"text": "VARCHAR", "importance": "VARCHAR", "assignment": "VARCHAR"}]}'
        )) as record
    from rag_lines
    where not is_blank
),

fields as (
    select
        line_number,
        is_object,
        record,
        length_state(record.response_length) as length_state
    from parsed
)

select
    line_number,
    case
        when record is null or not is_object then 'not a JSON object'
        when json_id_problem('qid', record.qid) is not null then json_id_problem('qid', record.qid)
        when json_id_problem('run_id', record.run_id) is not null then json_id_problem('run_id', record.run_id)
        when record.nuggets is null then 'no list of nuggets (nuggets)'
        when length_state = 'bad'
            then 'response_length ' || record.response_length || ' is not a non-negative integer'
    end as problem,
    json_id(record.run_id) as run_id,
    json_id(record.qid) as topic_id,
    record.query,
    record.answer_text,
    case when length_state = 'given' then try_cast(json_id(record.response_length) as integer) end
        as response_length,
    length_state = 'given' as length_given,
    record.nuggets
from fields
