-- reads: qrels_by_set
-- produces: derived_judgments (topic_id, intent_id, doc_id, level)
-- grain: topic_id, intent_id, doc_id
-- params: $campaign_id, $parents, $rule
-- derive_union: the union (merge) of the judgment sets $parents of campaign $campaign_id, one
-- label per (topic, intent, document) judged by any of them, chosen by $rule:
--   'first' the label of the first set of $parents (in the order given) that judged it: the
--           precedence rule; with $parents = [A, B] it fills the holes of A from B
--   'max'   the highest label any set gave (the most lenient judge)
--   'min'   the lowest label any set gave (the strictest judge)
-- docs/judgments.md section 3. Negative levels (pooled but unjudged) count as labels here.
with labelled as (
    select
        qrels_by_set.topic_id,
        qrels_by_set.intent_id,
        qrels_by_set.doc_id,
        qrels_by_set.level,
        list_position($parents, qrels_by_set.judgment_set) as precedence
    from qrels_by_set
    where qrels_by_set.campaign_id = $campaign_id and list_contains($parents, qrels_by_set.judgment_set)
)

select
    topic_id,
    intent_id,
    doc_id,
    case $rule
        when 'max' then max(level)
        when 'min' then min(level)
        else arg_min(level, precedence)
    end as level
from labelled
group by topic_id, intent_id, doc_id
