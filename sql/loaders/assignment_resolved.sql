-- reads: assignment_input, nuggets
-- produces: assignment_resolved (line_number, problem, run_id, topic_id, nugget_position, nugget_id, label, assessor)
-- grain: line_number, nugget_position
-- params: $campaign_id, $bank
-- assignment_resolved: each staged assignment (assignment_json_input.sql or
-- assignment_tsv_input.sql) with the nugget of bank $bank it labels. A TSV line names it by id; a
-- line of nuggetizer's assign output by its text: the k-th nugget of that text in the line's list is
-- the k-th of that text in the topic's list of the bank (a text given once, as almost every one is,
-- is simply that nugget). problem: the line's own, a nugget the bank lacks for the topic, or one
-- whose importance differs from the bank's (assignments of another bank), else null.
with bank_nuggets as (
    select
        topic_id,
        nugget_id,
        text,
        importance,
        row_number() over (partition by topic_id, text order by nugget_number) as occurrence
    from nuggets
    where campaign_id = $campaign_id and bank = $bank
),

-- one equi-join for both ways of naming a nugget: by id (key_id; key_text '', occurrence 0) or by
-- its text and occurrence (key_id '')
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
),

matched as (
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
    assessor
from matched
