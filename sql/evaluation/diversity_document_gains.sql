-- reads: global_gains, qrels_by_set
-- produces: evaluation_document_gains (topic_id, doc_id, gain)
-- grain: topic_id, doc_id
-- params: $campaign_id, $probs, $profile, $judgment_set
-- diversity_document_gains (temp table evaluation_document_gains): one row per (topic_id, doc_id)
-- judged in the evaluated diversity campaign (a qrels row for any intent, NTCIR's intent-0 L0
-- rows included): its global gain GG(d) under the staged probability variant and gain profile,
-- 0 when it is relevant to no listed intent. The D- and DIN-stagings' judged documents.
-- Reference: docs/diversity-measures.md section 3.1.
with judged as (
    select distinct
        topic_id,
        doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
)

select
    judged.topic_id,
    judged.doc_id,
    coalesce(global_gains.global_gain, 0.0) as gain
from judged
left join global_gains
    on
        global_gains.campaign_id = $campaign_id
        and global_gains.judgment_set = $judgment_set
        and global_gains.probs = $probs
        and global_gains.profile = $profile
        and judged.topic_id = global_gains.topic_id
        and judged.doc_id = global_gains.doc_id
