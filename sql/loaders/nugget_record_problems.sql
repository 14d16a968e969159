-- reads: nugget_records
-- produces: nugget_record_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: none
-- nugget_record_problems: the first bad line of nuggetizer's create output
-- (nugget_json_records.sql): an unreadable line, or a topic given on a second line (one line holds
-- a topic's nuggets). is_duplicate: the error is a duplicate entry.
with repeats as (
    select
        line_number,
        'topic ''' || topic_id || ''' given again (first on line '
        || first_value(line_number) over (partition by topic_id order by line_number) || ')' as problem,
        row_number() over (partition by topic_id order by line_number) as occurrence
    from nugget_records
    where problem is null
)

select line_number, problem, false as is_duplicate
from nugget_records
where problem is not null
union all
select line_number, problem, true as is_duplicate
from repeats
where occurrence > 1
order by line_number
limit 1
