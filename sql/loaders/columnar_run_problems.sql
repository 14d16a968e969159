-- reads: staged_run_files
-- produces: columnar_run_problems (line_number, role, problem)
-- grain: one row
-- params: $file_index, $first_row, $roles
-- columnar_run_problems: the first row of a run given as columns (columnar_run_rows.sql) holding a
-- value no text file could give: an identifier that is null, empty or holds whitespace
-- (identifier_problem, sql/loaders/macros.sql), a null score or one that is not finite (NaN, an
-- infinity: run_rows.sql refuses them in a file too), a null rank where the input has a rank
-- column (null too when its value does not fit a 64-bit integer: pyeval/loaders/columnar.py
-- reads the value again to say which), a run tag that is not an identifier where it has a tag
-- column. A document given twice for a topic is run_problems.sql's, as for a file.
-- Reads: staged_run_files. Parameters: $file_index (the input's rows), $first_row (the rowid of
-- its first row: rows are numbered from 1), $roles (the roles the input has a column for).
with input_rows as (
    select
        rowid + 1 - $first_row as line_number,
        identifier_problem(topic_id) as topic_problem,
        identifier_problem(doc_id) as doc_problem,
        case when score is null then 'null' when not isfinite(score) then 'not finite' end as score_problem,
        case when rank_given is null and list_contains($roles, 'rank_given') then 'null' end as rank_problem,
        case when list_contains($roles, 'run_tag') then identifier_problem(run_tag) end as tag_problem
    from staged_run_files
    where file_index = $file_index
)

select
    line_number,
    case
        when topic_problem is not null then 'topic_id'
        when doc_problem is not null then 'doc_id'
        when score_problem is not null then 'score'
        when rank_problem is not null then 'rank_given'
        else 'run_tag'
    end as role,
    coalesce(topic_problem, doc_problem, score_problem, rank_problem, tag_problem) as problem
from input_rows
where coalesce(topic_problem, doc_problem, score_problem, rank_problem, tag_problem) is not null
order by line_number
limit 1
