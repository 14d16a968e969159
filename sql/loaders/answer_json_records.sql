-- reads: rag_lines
-- produces: answer_records (line_number, problem, run_id, topic_id, team, topic_text, response_length, length_given, answer_references, sentences)
-- grain: line_number
-- params: none
-- answer_json_records: one row per data line of a TREC RAG answer file, each parsed once by
-- DuckDB's JSON reader. TREC RAG 2024: `{"run_id", "topic_id", "topic", "references",
-- "response_length", "answer": [{"text", "citations"}]}`; TREC RAG 2025: the run, topic and team
-- in `"metadata": {"team_id", "run_id", "narrative_id", "narrative", "type"}`, no
-- response_length (ragnarok's rag24/rag25 validators; docs/rag.md "Formats"). Other keys are
-- ignored. A citation is a JSON integer (a 0-based index into references) or a string (a document
-- of references, the 2025 validator's second form): kept as JSON for answer_json_citations.sql.
-- problem: what makes the line unreadable (not a JSON object, no usable run or topic id, no
-- answer list, a team holding a control character, a response_length that is not a non-negative integer), else null.
-- response_length: the file's, else null (answer_json_input.sql counts the words).
with parsed as (
    select
        line_number,
        is_json_object(line) as is_object,
        try(from_json(
            line,
            '{"run_id": "JSON", "topic_id": "JSON", "topic": "VARCHAR", "response_length": "JSON",
              "references": ["VARCHAR"], "answer": [{"text": "VARCHAR", "citations": ["JSON"]}],
              "metadata": {"team_id": "VARCHAR", "run_id": "JSON", "narrative_id": "JSON", "narrative": "VARCHAR"}}'
        )) as record
    from rag_lines
    where not is_blank
),

fields as (
    select
        line_number,
        is_object,
        record,
        coalesce(record.metadata.run_id, record.run_id) as run_json,
        coalesce(record.metadata.narrative_id, record.topic_id) as topic_json,
        length_state(record.response_length) as length_state
    from parsed
)

select
    line_number,
    case
        when record is null or not is_object then 'not a JSON object'
        when json_id_problem('run_id', run_json) is not null then json_id_problem('run_id', run_json)
        when json_id_problem('topic_id', topic_json) is not null
            then json_id_problem('topic_id (or metadata.narrative_id)', topic_json)
        when record.answer is null then 'no list of sentences (answer)'
        when control_problem('metadata.team_id', record.metadata.team_id) is not null
            then control_problem('metadata.team_id', record.metadata.team_id)
        when length_state = 'bad'
            then 'response_length ' || record.response_length || ' is not a non-negative integer'
    end as problem,
    json_id(run_json) as run_id,
    json_id(topic_json) as topic_id,
    record.metadata.team_id as team,
    coalesce(record.metadata.narrative, record.topic) as topic_text,
    case when length_state = 'given' then try_cast(json_id(record.response_length) as integer) end
        as response_length,
    length_state = 'given' as length_given,
    coalesce(record."references", []) as answer_references,
    record.answer as sentences
from fields
