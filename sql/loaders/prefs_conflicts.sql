-- prefs_conflicts: a pair of documents that one judgment group prefers both ways once the
-- preferences of its sub-groups are closed transitively (trec_eval 10.0 form_prefs_counts.c
-- aborts: "Pref inconsistency found"), or nothing. A group with one sub-group cannot conflict
-- (its preferences follow one ordering of levels), so only groups with several are closed.
-- Reads: prefs_input (the rows of prefs_rows.sql, already checked by prefs_problems.sql).
with recursive several_sub_groups as (
    select topic_id, jg
    from prefs_input
    group by topic_id, jg
    having count(distinct jsg) > 1
),

direct_preferences as (
    select
        better.topic_id,
        better.jg,
        better.doc_id as better_doc,
        worse.doc_id as worse_doc
    from prefs_input as better
    inner join several_sub_groups
        on better.topic_id = several_sub_groups.topic_id and better.jg = several_sub_groups.jg
    inner join prefs_input as worse
        on
            better.topic_id = worse.topic_id
            and better.jg = worse.jg
            and better.jsg = worse.jsg
            and better.rel_level > worse.rel_level
),

closure as (
    select topic_id, jg, better_doc, worse_doc
    from direct_preferences
    union
    select
        closure.topic_id,
        closure.jg,
        closure.better_doc,
        direct_preferences.worse_doc
    from closure
    inner join direct_preferences
        on
            closure.topic_id = direct_preferences.topic_id
            and closure.jg = direct_preferences.jg
            and closure.worse_doc = direct_preferences.better_doc
)

select
    forward.topic_id,
    forward.jg,
    forward.better_doc,
    forward.worse_doc
from closure as forward
inner join closure as backward
    on
        forward.topic_id = backward.topic_id
        and forward.jg = backward.jg
        and forward.better_doc = backward.worse_doc
        and forward.worse_doc = backward.better_doc
where forward.better_doc <= forward.worse_doc
order by forward.topic_id, forward.jg, forward.better_doc, forward.worse_doc
limit 1
