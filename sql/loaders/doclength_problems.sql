-- reads: doclength_input
-- produces: doclength_problems (line_number, problem)
-- grain: line_number
-- params: none
-- doclength_problems: every bad document-lengths line, first line first. Identical duplicate
-- lines are allowed (and stored once); two different lengths for one document are an error.
-- Reads: doclength_input (the rows of doclength_rows.sql).
with line_problems as (
    select
        line_number,
        case
            when field_count <> 2
                then 'expected 2 fields (docno length), found ' || field_count
            else 'length ''' || length_text || ''' is not a non-negative integer'
        end as problem
    from doclength_input
    where field_count <> 2 or length is null
),

first_lengths as (
    select doc_id, arg_min(length, line_number) as first_length, min(line_number) as first_line
    from doclength_input
    where field_count = 2 and length is not null
    group by doc_id
    having count(distinct length) > 1
),

conflict_problems as (
    select
        doclength_input.line_number,
        'document ''' || doclength_input.doc_id || ''' has length ' || doclength_input.length
        || ' here but ' || first_lengths.first_length || ' on line ' || first_lengths.first_line
        as problem
    from doclength_input
    inner join first_lengths on doclength_input.doc_id = first_lengths.doc_id
    where doclength_input.length <> first_lengths.first_length
)

select line_number, problem from line_problems
union all
select line_number, problem from conflict_problems
order by line_number, problem
limit 1
