-- reads: staged_qrels_files
-- produces: columnar_qrels_problems (line_number, role, problem)
-- grain: one row
-- params: $file_index, $first_row, $roles
-- columnar_qrels_problems: the first row of qrels given as columns (columnar_qrels_rows.sql)
-- holding a value no text file could give: an identifier (topic, document, iteration) that is
-- null, empty or holds whitespace (identifier_problem, sql/loaders/macros.sql), a null relevance
-- (null too when its value does not fit a 32-bit integer: pyeval/loaders/columnar.py reads the
-- value again to say which). A judgment given twice is qrels_problems.sql's, as for a file.
-- Reads: staged_qrels_files. Parameters: $file_index (the input's rows), $first_row (the rowid of
-- its first row: rows are numbered from 1), $roles (the roles the input has a column for: an
-- absent iteration is '0', never wrong).
with input_rows as (
    select
        rowid + 1 - $first_row as line_number,
        identifier_problem(topic_id) as topic_problem,
        identifier_problem(doc_id) as doc_problem,
        case when level is null then 'null' end as level_problem,
        case when list_contains($roles, 'iteration') then identifier_problem(iter) end as iteration_problem
    from staged_qrels_files
    where file_index = $file_index
)

select
    line_number,
    case
        when topic_problem is not null then 'topic_id'
        when doc_problem is not null then 'doc_id'
        when level_problem is not null then 'level'
        else 'iteration'
    end as role,
    coalesce(topic_problem, doc_problem, level_problem, iteration_problem) as problem
from input_rows
where coalesce(topic_problem, doc_problem, level_problem, iteration_problem) is not null
order by line_number
limit 1
