-- reads: intents_by_set, qrels_input
-- produces: qrels_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: $field_count, $layout, $level_form, $campaign_id, $judgment_set
-- qrels_problems: every bad qrels line with what is wrong, first line first; is_duplicate
-- marks a judgment given twice (trec_eval exits 4 for it, 2 for a malformed line).
-- Reads: qrels_input (the rows of qrels_rows.sql), intents.
-- Parameters: $field_count (fields a line must have), $layout (their names, for the message),
--   $level_form (how a level must look, for the message), $campaign_id.
with field_count_problems as (
    select
        line_number,
        case
            when is_blank then 'blank line'
            else 'expected ' || $field_count || ' fields (' || $layout || '), found ' || field_count
        end as problem
    from qrels_input
    where is_blank or field_count <> $field_count
),

level_problems as (
    select
        line_number,
        'relevance level ''' || level_text || ''' is not ' || $level_form as problem
    from qrels_input
    where not is_blank and field_count = $field_count and level is null
),

duplicated_keys as (
    select topic_id, intent_id, doc_id, min(line_number) as first_line
    from qrels_input
    where not is_blank and field_count = $field_count
    group by topic_id, intent_id, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        qrels_input.line_number,
        'duplicate judgment of document ''' || qrels_input.doc_id || ''' for topic '''
        || qrels_input.topic_id || ''''
        || case
            when qrels_input.intent_id = '' then ''
            else ', intent ''' || qrels_input.intent_id || ''''
        end
        || ' (first on line ' || duplicated_keys.first_line || ')' as problem
    from qrels_input
    inner join duplicated_keys
        on
            qrels_input.topic_id = duplicated_keys.topic_id
            and qrels_input.intent_id = duplicated_keys.intent_id
            and qrels_input.doc_id = duplicated_keys.doc_id
    where qrels_input.line_number > duplicated_keys.first_line
),

campaign_intents as (
    select topic_id, intent_id
    from intents_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
),

topics_with_intents as (
    select distinct topic_id
    from campaign_intents
),

unknown_intent_problems as (
    select
        qrels_input.line_number,
        'intent ''' || qrels_input.intent_id || ''' of topic ''' || qrels_input.topic_id
        || ''' is not among the campaign''s intents' as problem
    from qrels_input
    inner join topics_with_intents on qrels_input.topic_id = topics_with_intents.topic_id
    left join campaign_intents
        on
            qrels_input.topic_id = campaign_intents.topic_id
            and qrels_input.intent_id = campaign_intents.intent_id
    where
        qrels_input.level > 0
        and qrels_input.intent_id <> ''
        and campaign_intents.intent_id is null
)

select line_number, problem, false as is_duplicate from field_count_problems
union all
select line_number, problem, false as is_duplicate from level_problems
union all
select line_number, problem, true as is_duplicate from duplicate_problems
union all
select line_number, problem, false as is_duplicate from unknown_intent_problems
order by line_number, problem
limit 1
