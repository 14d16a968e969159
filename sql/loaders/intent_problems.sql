-- reads: intent_input
-- produces: intent_problems (line_number, problem)
-- grain: line_number
-- params: none
-- intent_problems: every bad intents line with what is wrong, first line first.
-- Reads: intent_input (the rows of intent_rows.sql).
with line_problems as (
    select
        line_number,
        case
            when is_blank then 'blank line'
            when field_count not in (3, 4)
                then 'expected 3 or 4 fields (topic intent probability [inf|nav]), found '
                || field_count
            when probability is null
                then 'probability ''' || probability_text || ''' is not a number'
            when probability < 0 or probability > 1
                then 'probability ' || probability_text || ' is outside [0, 1]'
            when intent_type not in ('inf', 'nav')
                then 'intent type ''' || intent_type || ''' is neither inf nor nav'
        end as problem
    from intent_input
),

duplicated_keys as (
    select topic_id, intent_id, min(line_number) as first_line
    from intent_input
    where not is_blank
    group by topic_id, intent_id
    having count(*) > 1
),

duplicate_problems as (
    select
        intent_input.line_number,
        'intent ''' || intent_input.intent_id || ''' of topic ''' || intent_input.topic_id
        || ''' listed twice (first on line ' || duplicated_keys.first_line || ')' as problem
    from intent_input
    inner join duplicated_keys
        on
            intent_input.topic_id = duplicated_keys.topic_id
            and intent_input.intent_id = duplicated_keys.intent_id
    where intent_input.line_number > duplicated_keys.first_line
)

select line_number, problem from line_problems where problem is not null
union all
select line_number, problem from duplicate_problems
order by line_number, problem
limit 1
