-- reads: assignment_resolved, runs
-- produces: assignment_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: $campaign_id, $labels, $runs_required, $answer_per_line
-- assignment_problems: the first bad assignment of an assignments file (assignment_resolved.sql),
-- first line first: the line's own problem, no label, a label not in $labels (support,
-- partial_support, not_support), a nugget labelled twice for one answer, and, when
-- $answer_per_line (nuggetizer's assign output: one line per answer), an answer given on two
-- lines; when $runs_required (a TSV file, which carries no answers), a run campaign $campaign_id
-- does not have. is_duplicate: the error is a duplicate entry. Repeats are found by aggregating
-- first, so that a file without any costs one hash aggregate, not a sort. On one line, an answer
-- given again is named before what follows from it (its nuggets labelled again).
with line_problems as (
    select
        line_number,
        case
            when problem is not null then problem
            when coalesce(label, '') = '' then 'nugget ''' || nugget_id || ''' has no label'
            when not list_contains($labels, label)
                then 'nugget ''' || nugget_id || ''': label ''' || label || ''' is not one of '
                || array_to_string($labels, ', ')
            when $runs_required and run_id not in (select runs.run_id from runs where runs.campaign_id = $campaign_id)
                then 'run ''' || run_id || ''' is not a run of campaign ''' || $campaign_id
                || '''; load its answers first'
        end as problem,
        false as is_duplicate
    from assignment_resolved
),

answer_lines as (
    select run_id, topic_id, min(line_number) as first_line
    from assignment_resolved
    where $answer_per_line
    group by run_id, topic_id
    having count(distinct line_number) > 1
),

answer_repeats as (
    select distinct
        assignment_resolved.line_number,
        'the assignments of run ''' || assignment_resolved.run_id || ''' for topic ''' || assignment_resolved.topic_id
        || ''' given again (first on line ' || answer_lines.first_line || ')' as problem,
        true as is_duplicate
    from assignment_resolved
    inner join answer_lines
        on assignment_resolved.run_id = answer_lines.run_id and assignment_resolved.topic_id = answer_lines.topic_id
    where assignment_resolved.line_number > answer_lines.first_line
),

repeated_nuggets as (
    select run_id, topic_id, nugget_id
    from assignment_resolved
    where nugget_id is not null
    group by run_id, topic_id, nugget_id
    having count(*) > 1
),

nugget_repeats as (
    select
        assignment_resolved.line_number,
        'nugget ''' || assignment_resolved.nugget_id || ''' of topic ''' || assignment_resolved.topic_id
        || ''' labelled again for run ''' || assignment_resolved.run_id || ''' (first on line '
        || first_value(assignment_resolved.line_number) over keyed || ')' as problem,
        true as is_duplicate,
        row_number() over keyed as occurrence
    from assignment_resolved
    inner join repeated_nuggets
        on assignment_resolved.run_id = repeated_nuggets.run_id
        and assignment_resolved.topic_id = repeated_nuggets.topic_id
        and assignment_resolved.nugget_id = repeated_nuggets.nugget_id
    window keyed as (
        partition by assignment_resolved.run_id, assignment_resolved.topic_id, assignment_resolved.nugget_id
        order by assignment_resolved.line_number, assignment_resolved.nugget_position
    )
)

select line_number, problem, is_duplicate
from (
    select line_number, 0 as priority, problem, is_duplicate from answer_repeats
    union all
    select line_number, 1 as priority, problem, is_duplicate from line_problems where problem is not null
    union all
    select line_number, 1 as priority, problem, is_duplicate from nugget_repeats where occurrence > 1
)
order by line_number, priority, problem
limit 1
