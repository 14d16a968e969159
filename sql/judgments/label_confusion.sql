-- reads: qrels_by_set
-- produces: label_confusion (topic_id, reference_level, candidate_level, documents)
-- grain: topic_id, reference_level, candidate_level
-- params: $campaign_id, $reference, $candidate
-- label_confusion: the confusion counts of two judgment sets of campaign $campaign_id, per topic:
-- how many units (topic, intent, document; ad hoc judgments have intent '') the set $reference
-- labels reference_level and the set $candidate labels candidate_level. A unit is judged by a
-- set when the set has a row for it with a level >= 0 (negative levels, TREC's pooled-but-unjudged
-- -2, count as not judged); a unit judged by one set only has a null level on the other side.
-- pyeval/judgments/agreement.py computes every coefficient from these counts
-- (docs/judgments.md section 4).
with reference as (
    select topic_id, intent_id, doc_id, level
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $reference and level >= 0
),

candidate as (
    select topic_id, intent_id, doc_id, level
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $candidate and level >= 0
)

select
    coalesce(reference.topic_id, candidate.topic_id) as topic_id,
    reference.level as reference_level,
    candidate.level as candidate_level,
    count(*) as documents
from reference
full outer join candidate
    on
        reference.topic_id = candidate.topic_id
        and reference.intent_id = candidate.intent_id
        and reference.doc_id = candidate.doc_id
group by all
