-- reads: preference_closure
-- produces: prefs_conflicts (topic_id, jg, better_doc, worse_doc)
-- grain: topic_id, jg, better_doc, worse_doc
-- params: none
-- prefs_conflicts: a pair of documents that one judgment group prefers both ways once the
-- preferences of its sub-groups are closed transitively (trec_eval 10.0 form_prefs_counts.c
-- aborts: "Pref inconsistency found"), or nothing.
-- Reads: preference_closure (sql/evaluation/preference_closure.sql).
select
    forward.topic_id,
    forward.jg,
    forward.better_doc,
    forward.worse_doc
from preference_closure as forward
inner join preference_closure as backward
    on
        forward.topic_id = backward.topic_id
        and forward.jg = backward.jg
        and forward.better_doc = backward.worse_doc
        and forward.worse_doc = backward.better_doc
where forward.better_doc <= forward.worse_doc
order by forward.topic_id, forward.jg, forward.better_doc, forward.worse_doc
