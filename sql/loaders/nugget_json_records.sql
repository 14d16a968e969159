-- reads: rag_lines
-- produces: nugget_records (line_number, problem, topic_id, query, nuggets, is_assignment, is_first)
-- grain: line_number
-- params: none
-- nugget_json_records: one row per data line of nuggetizer's create output (JSON lines
-- `{"qid", "query", "nuggets": [{"text", "importance"}]}`; other keys, such as its trace, are
-- ignored), each parsed once by DuckDB's JSON reader. nuggetizer's assign output (a line per run
-- and topic, with its run_id; TREC RAG 2024's nugget_assignment.20241108.jl is one) gives a bank
-- too: is_assignment marks such a line, whose topic's nuggets are listed again on the topic's
-- other lines. is_first: the topic's first line (the one its nuggets are taken from).
-- problem: what makes the line unreadable (not a JSON object, no usable qid, no list of nuggets),
-- else null. Blank lines are skipped.
with parsed as (
    select
        line_number,
        is_json_object(line) as is_object,
        try(from_json(
            line,
            '{"qid": "JSON", "query": "VARCHAR", "run_id": "JSON", "nuggets": [{"text": "VARCHAR", "importance": "VARCHAR"}]}'
        )) as record
    from rag_lines
    where not is_blank
),

checked as (
    select
        line_number,
        case
            when record is null or not is_object then 'not a JSON object'
            when json_id_problem('qid', record.qid) is not null then json_id_problem('qid', record.qid)
            when record.nuggets is null then 'no list of nuggets (nuggets)'
        end as problem,
        json_id(record.qid) as topic_id,
        record.query,
        record.nuggets,
        record.run_id is not null and json_type(record.run_id) <> 'NULL' as is_assignment
    from parsed
)

select
    *,
    problem is null
    and line_number = min(line_number) filter (where problem is null) over (partition by topic_id) as is_first
from checked
