-- reads: nugget_assignments
-- produces: nugget_label_confusion (topic_id, reference_level, candidate_level, documents)
-- grain: topic_id, reference_level, candidate_level
-- params: $campaign_id, $reference, $candidate
-- nugget_label_confusion: the confusion counts of two nugget assignment sets of campaign
-- $campaign_id, per topic: how many units (run, topic, nugget) the set $reference labels
-- reference_level and the set $candidate labels candidate_level, the labels as ordered levels
-- not_support 0, partial_support 1, support 2 (so that pyeval/judgments/agreement.py computes every
-- coefficient of two judgment sets from them: binary kappa at threshold 2 is support against the
-- rest, at 1 any support against none; docs/rag.md "Agreement"). A unit one set labels and the
-- other does not has a null level on the other side. Units are the nuggets of the sets' bank: two
-- sets over different banks share no unit (compare their scores).
with levels as (
    select
        judgment_set,
        bank,
        run_id,
        topic_id,
        nugget_id,
        case label when 'support' then 2 when 'partial_support' then 1 else 0 end as level
    from nugget_assignments
    where campaign_id = $campaign_id and judgment_set in ($reference, $candidate)
),

reference as (
    select * from levels where judgment_set = $reference
),

candidate as (
    select * from levels where judgment_set = $candidate
)

select
    coalesce(reference.topic_id, candidate.topic_id) as topic_id,
    reference.level as reference_level,
    candidate.level as candidate_level,
    count(*) as documents
from reference
full outer join candidate
    on
        reference.bank = candidate.bank
        and reference.run_id = candidate.run_id
        and reference.topic_id = candidate.topic_id
        and reference.nugget_id = candidate.nugget_id
group by all
