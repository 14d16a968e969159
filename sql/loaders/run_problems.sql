-- reads: run_input
-- produces: run_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: none
-- run_problems: every bad run line with what is wrong, first line first.
-- Reads: run_input (the rows of run_rows.sql).
-- A duplicate (topic, docno) is an error (trec_eval and ndeval abort on it too); is_duplicate
-- tells it apart from a malformed line (trec_eval exits 4 for one, 2 for the other).
with field_count_problems as (
    select
        line_number,
        'expected at least 6 fields (topic iter docno rank score run_tag), found '
        || field_count as problem
    from run_input
    where field_count < 6
),

value_problems as (
    select
        line_number,
        case
            when rank_given is null then 'rank ''' || rank_text || ''' is not an integer'
            else 'score ''' || score_text || ''' is not a finite number'
        end as problem
    from run_input
    where field_count >= 6 and (rank_given is null or score is null)
),

duplicated_keys as (
    select topic_id, doc_id, min(line_number) as first_line
    from run_input
    where field_count >= 6
    group by topic_id, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        run_input.line_number,
        'document ''' || run_input.doc_id || ''' retrieved twice for topic '''
        || run_input.topic_id || ''' (first on line ' || duplicated_keys.first_line || ')'
        as problem
    from run_input
    inner join duplicated_keys
        on
            run_input.topic_id = duplicated_keys.topic_id
            and run_input.doc_id = duplicated_keys.doc_id
    where run_input.line_number > duplicated_keys.first_line
)

select line_number, problem, false as is_duplicate from field_count_problems
union all
select line_number, problem, false as is_duplicate from value_problems
union all
select line_number, problem, true as is_duplicate from duplicate_problems
order by line_number, problem
limit 1
