-- reads: prefs_input
-- produces: prefs_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: $field_count, $layout
-- prefs_problems: the first bad line of a preference file with what is wrong; is_duplicate
-- marks a document given twice in one judgment sub-group.
-- Reads: prefs_input (the rows of prefs_rows.sql).
-- Parameters: $field_count (5 for prefs, 4 for qrels read as preferences), $layout (the field
--   names, for the message).
-- Reference: trec_eval 10.0 get_prefs.c ("Malformed line"), form_prefs_counts.c (a document
-- at two levels of one sub-group; level 0 and level > 0 for one document in one judgment group).
with well_formed as (
    select *
    from prefs_input
    where not is_blank and field_count = $field_count and rel_level is not null
),

field_count_problems as (
    select
        line_number,
        case
            when is_blank then 'blank line'
            else 'expected ' || $field_count || ' fields (' || $layout || '), found ' || field_count
        end as problem
    from prefs_input
    where is_blank or field_count <> $field_count
),

level_problems as (
    select
        line_number,
        'relevance level ''' || level_text || ''' is not a number' as problem
    from prefs_input
    where not is_blank and field_count = $field_count and rel_level is null
),

first_lines as (
    select topic_id, jg, jsg, doc_id, min(line_number) as first_line
    from well_formed
    group by topic_id, jg, jsg, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        well_formed.line_number,
        'document ''' || well_formed.doc_id || ''' judged twice for topic ''' || well_formed.topic_id
        || ''', judgment group ''' || well_formed.jg || ''', sub-group ''' || well_formed.jsg
        || ''' (first on line ' || first_lines.first_line || ')' as problem
    from well_formed
    inner join first_lines
        on
            well_formed.topic_id = first_lines.topic_id
            and well_formed.jg = first_lines.jg
            and well_formed.jsg = first_lines.jsg
            and well_formed.doc_id = first_lines.doc_id
    where well_formed.line_number > first_lines.first_line
),

zero_lines as (
    select topic_id, jg, doc_id, min(line_number) as first_line
    from well_formed
    where rel_level = 0
    group by topic_id, jg, doc_id
),

positive_lines as (
    select topic_id, jg, doc_id, min(line_number) as first_line
    from well_formed
    where rel_level > 0
    group by topic_id, jg, doc_id
),

zero_and_positive_problems as (
    select
        greatest(zero_lines.first_line, positive_lines.first_line) as line_number,
        'document ''' || zero_lines.doc_id || ''' of topic ''' || zero_lines.topic_id
        || ''', judgment group ''' || zero_lines.jg || ''' has level 0 (line '
        || zero_lines.first_line || ') and a level > 0 (line ' || positive_lines.first_line
        || ')' as problem
    from zero_lines
    inner join positive_lines
        on
            zero_lines.topic_id = positive_lines.topic_id
            and zero_lines.jg = positive_lines.jg
            and zero_lines.doc_id = positive_lines.doc_id
)

select line_number, problem, false as is_duplicate from field_count_problems
union all
select line_number, problem, false as is_duplicate from level_problems
union all
select line_number, problem, true as is_duplicate from duplicate_problems
union all
select line_number, problem, false as is_duplicate from zero_and_positive_problems
order by line_number, problem
limit 1
