-- reads: qrels_by_set
-- produces: driver_topics (topic_id, topic_no)
-- grain: topic_no
-- params: $campaign_id, $judgment_set
-- driver_topics: the judged topics of a campaign (a qrels row for any intent, at any level),
-- numbered 0.. in byte order (topic_no).
-- Reference: docs/input-files.md section 8 (topics with judgments).
select
    topic_id,
    (row_number() over (order by topic_id) - 1)::integer as topic_no
from (
    select distinct topic_id from qrels_by_set where campaign_id = $campaign_id and judgment_set = $judgment_set
)
