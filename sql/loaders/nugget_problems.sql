-- reads: nugget_input
-- produces: nugget_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: $field_count, $header, $importance, $creators
-- nugget_problems: the first bad nugget of a nuggets file (nugget_json_input.sql or
-- nugget_tsv_input.sql), first line first: a TSV line without the header's number of fields, no
-- topic, an empty id, no text, an importance not in $importance (vital, okay), a creator not in
-- $creators (human, llm), a nugget given twice for its topic (a topic given on two lines of JSON is
-- nugget_record_problems.sql's). is_duplicate: the error is a duplicate entry.
-- Parameters: $field_count and $header (the TSV header's fields and text; 0 and '' for JSON).
with nugget_checks as (
    select
        line_number,
        case
            when field_count is not null and field_count <> $field_count
                then 'expected ' || $field_count || ' fields (' || $header || '), found ' || field_count
            when coalesce(topic_id, '') = '' then 'no topic_id'
            when nugget_id = '' then 'nugget ' || nugget_number || ' of topic ''' || topic_id || ''' has an empty nugget_id'
            when coalesce(text, '') = '' then 'nugget ' || nugget_number || ' of topic ''' || topic_id || ''' has no text'
            when importance is null then 'nugget ' || nugget_number || ' of topic ''' || topic_id || ''' has no importance'
            when not list_contains($importance, importance)
                then 'nugget ' || nugget_number || ' of topic ''' || topic_id || ''': importance ''' || importance
                || ''' is not one of ' || array_to_string($importance, ', ')
            when not list_contains($creators, creator)
                then 'creator ''' || creator || ''' is not one of ' || array_to_string($creators, ', ')
        end as problem
    from nugget_input
),

line_problems as (
    select line_number, problem, false as is_duplicate
    from nugget_checks
    where problem is not null
),

nugget_repeats as (
    select
        line_number,
        'nugget ''' || nugget_id || ''' of topic ''' || topic_id || ''' given again (first on line '
        || first_value(line_number) over (partition by topic_id, nugget_id order by line_number) || ')' as problem,
        true as is_duplicate,
        row_number() over (partition by topic_id, nugget_id order by line_number) as occurrence
    from nugget_input
)

select line_number, problem, is_duplicate from line_problems
union all
select line_number, problem, is_duplicate from nugget_repeats where occurrence > 1
order by line_number, problem
limit 1
