-- reads: evaluation_preferences
-- produces: preference_closure (topic_id, jg, better_doc, worse_doc)
-- grain: topic_id, jg, better_doc, worse_doc
-- params: none
-- preference_closure: the preferences of every judgment group with several sub-groups, closed
-- transitively (A > B in one sub-group and B > C in another give A > C; trec_eval 10.0
-- form_prefs_counts.c add_transitives). A group with one sub-group needs no closure: its
-- preferences follow one ordering of levels. A pair present both ways is an inconsistency,
-- which the loader refuses (sql/loaders/prefs_conflicts.sql).
-- Reads: evaluation_preferences(topic_id, jg, jsg, doc_id, rel_level).
with recursive several_sub_groups as (
    select topic_id, jg
    from evaluation_preferences
    group by topic_id, jg
    having count(distinct jsg) > 1
),

direct_preferences as (
    select
        better.topic_id,
        better.jg,
        better.doc_id as better_doc,
        worse.doc_id as worse_doc
    from evaluation_preferences as better
    inner join several_sub_groups
        on better.topic_id = several_sub_groups.topic_id and better.jg = several_sub_groups.jg
    inner join evaluation_preferences as worse
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

select topic_id, jg, better_doc, worse_doc
from closure
