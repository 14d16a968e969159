-- reads: qrels
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
        qrels.topic_id,
        qrels.intent_id,
        qrels.doc_id,
        qrels.level,
        list_position($parents, qrels.judgment_set) as precedence
    from qrels
    where qrels.campaign_id = $campaign_id and list_contains($parents, qrels.judgment_set)
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
