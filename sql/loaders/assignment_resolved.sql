-- reads: assignment_input, nuggets
-- produces: assignment_resolved (line_number, problem, run_id, topic_id, nugget_position, nugget_id, label, assessor)
-- grain: line_number, nugget_position
-- params: $campaign_id, $bank, $assessor
-- assignment_resolved: each staged assignment (assignment_json_input.sql or
-- assignment_tsv_input.sql) with the nugget of bank $bank it labels. A TSV line names it by id; a
-- line of nuggetizer's assign output by its text: the k-th nugget of that text in the line's list is
-- the k-th of that text in the topic's list of the bank (a text given once, as almost every one is,
-- is simply that nugget). nuggetizer writes a topic's nuggets in the bank's order, so a line whose
-- every nugget has the text of the bank's nugget at its place is resolved by place (a join on
-- numbers, which gives what the text rule gives); the other lines by text. problem: the line's
-- own, a nugget the bank lacks for the topic, or one whose importance differs from the bank's
-- (assignments of another bank), else null. assessor: the file's, else $assessor (`--judge`).
with bank_nuggets as (
    select
        topic_id,
        nugget_id,
        nugget_number,
        text,
        importance,
        row_number() over (partition by topic_id, text order by nugget_number) as occurrence
    from nuggets
    where campaign_id = $campaign_id and bank = $bank
),

placed as (
    select
        assignment_input.*,
        bank_nuggets.nugget_id as placed_id,
        bank_nuggets.importance as placed_importance,
        assignment_input.nugget_id is null and bank_nuggets.text = assignment_input.nugget_text as is_in_place
    from assignment_input
    left join bank_nuggets
        on assignment_input.topic_id = bank_nuggets.topic_id
        and assignment_input.nugget_position = bank_nuggets.nugget_number
),

lines_in_place as (
    select line_number
    from placed
    group by line_number
    having bool_and(coalesce(is_in_place, false))
),

by_place as (
    select
        line_number,
        problem,
        run_id,
        topic_id,
        nugget_position,
        nugget_text,
        nugget_id as given_id,
        importance as given_importance,
        label,
        assessor,
        placed_id as nugget_id,
        placed_importance as importance
    from placed
    where line_number in (select lines_in_place.line_number from lines_in_place)
),

-- the other lines: an equi-join for both ways of naming a nugget, by id (key_id; key_text '',
-- occurrence 0) or by its text and occurrence in the line (key_id '')
bank_keys as (
    select topic_id, nugget_id, importance, nugget_id as key_id, '' as key_text, 0 as occurrence
    from bank_nuggets
    union all
    select topic_id, nugget_id, importance, '' as key_id, text as key_text, occurrence
    from bank_nuggets
),

given as (
    select
        *,
        coalesce(nugget_id, '') as key_id,
        case when nugget_id is null then coalesce(nugget_text, '') else '' end as key_text,
        case
            when nugget_id is null
                then row_number() over (partition by line_number, nugget_text order by nugget_position)
            else 0
        end as occurrence
    from assignment_input
    where line_number not in (select lines_in_place.line_number from lines_in_place)
),

by_key as (
    select
        given.line_number,
        given.problem,
        given.run_id,
        given.topic_id,
        given.nugget_position,
        given.nugget_text,
        given.nugget_id as given_id,
        given.importance as given_importance,
        given.label,
        given.assessor,
        bank_keys.nugget_id,
        bank_keys.importance
    from given
    left join bank_keys
        on given.topic_id = bank_keys.topic_id
        and given.key_id = bank_keys.key_id
        and given.key_text = bank_keys.key_text
        and given.occurrence = bank_keys.occurrence
),

matched as (
    select * from by_place
    union all
    select * from by_key
)

select
    line_number,
    case
        when problem is not null then problem
        when given_id is null and coalesce(nugget_text, '') = ''
            then 'nugget ' || nugget_position || ' has no text'
        when nugget_id is null and given_id is not null
            then 'nugget ''' || given_id || ''' is not a nugget of topic ''' || topic_id || ''' in bank ''' || $bank || ''''
        when nugget_id is null
            then 'nugget ' || nugget_position || ' (''' || left(nugget_text, 60)
            || case when length(nugget_text) > 60 then '...' else '' end
            || ''') is not a nugget of topic ''' || topic_id || ''' in bank ''' || $bank || ''''
        when given_importance is not null and given_importance <> importance
            then 'nugget ' || nugget_position || ' is ' || given_importance || ' here but ' || importance
            || ' in bank ''' || $bank || ''' (nugget ''' || nugget_id || ''' of topic ''' || topic_id || ''')'
    end as problem,
    run_id,
    topic_id,
    nugget_position,
    nugget_id,
    label,
    coalesce(assessor, $assessor::varchar) as assessor
from matched
