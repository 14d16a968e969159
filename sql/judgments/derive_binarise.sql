-- reads: qrels_by_set
-- produces: derived_judgments (topic_id, intent_id, doc_id, level)
-- grain: topic_id, intent_id, doc_id
-- params: $campaign_id, $parent, $threshold
-- derive_binarise: the judgment set $parent with binary labels: 1 where its level >= $threshold,
-- 0 where 0 <= level < $threshold; negative levels (pooled but unjudged, TREC -2) are kept as
-- they are, so that the documents stay unjudged. docs/judgments.md section 3.
select
    topic_id,
    intent_id,
    doc_id,
    case
        when level < 0 then level
        when level >= $threshold then 1
        else 0
    end as level
from qrels_by_set
where campaign_id = $campaign_id and judgment_set = $parent
