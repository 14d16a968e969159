-- reads: nugget_records
-- produces: nugget_record_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: none
-- nugget_record_problems: the first bad line of nuggetizer's output read as a bank
-- (nugget_json_records.sql): an unreadable line; in create output, a topic given on a second line
-- (one line holds a topic's nuggets); in assign output, a line whose topic's nuggets (texts and
-- importances, in order) differ from those of the topic's first line. is_duplicate: the error is
-- a duplicate entry.
with first_lines as (
    select topic_id, line_number as first_line, nuggets as first_nuggets
    from nugget_records
    where is_first
),

repeats as (
    select
        nugget_records.line_number,
        case
            when not nugget_records.is_assignment
                then 'topic ''' || nugget_records.topic_id || ''' given again (first on line ' || first_lines.first_line || ')'
            when nugget_records.nuggets <> first_lines.first_nuggets
                then 'the nuggets of topic ''' || nugget_records.topic_id || ''' differ from those on line '
                || first_lines.first_line || ' (an assignment file lists each topic''s nuggets alike)'
        end as problem,
        not nugget_records.is_assignment as is_duplicate
    from nugget_records
    inner join first_lines on nugget_records.topic_id = first_lines.topic_id
    where nugget_records.problem is null and not nugget_records.is_first
)

select line_number, problem, false as is_duplicate
from nugget_records
where problem is not null
union all
select line_number, problem, is_duplicate
from repeats
where problem is not null
order by line_number
limit 1
