-- reads: qrels_by_set
-- produces: derived_judgments (topic_id, intent_id, doc_id, level)
-- grain: topic_id, intent_id, doc_id
-- params: $campaign_id, $parent, $other
-- derive_common: the judgments of $parent restricted to the documents $other judged too (both
-- with a level >= 0 for the same topic and intent): the pool both judges saw, on which their
-- scores compare label for label. docs/judgments.md section 3.
select
    parent.topic_id,
    parent.intent_id,
    parent.doc_id,
    parent.level
from qrels_by_set as parent
inner join qrels_by_set as other
    on
        other.campaign_id = $campaign_id
        and other.judgment_set = $other
        and parent.topic_id = other.topic_id
        and parent.intent_id = other.intent_id
        and parent.doc_id = other.doc_id
        and other.level >= 0
where parent.campaign_id = $campaign_id and parent.judgment_set = $parent and parent.level >= 0
