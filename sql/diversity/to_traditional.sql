-- reads: qrels_by_set
-- produces: to_traditional (topic_id, doc_id, level)
-- grain: topic_id, doc_id
-- params: $source, $method, $negative_as
-- to_traditional: the ad hoc qrels of a "2T" conversion of a diversity campaign, one row per
-- (topic_id, doc_id) judged in the source (docs/diversity-measures.md section 10; Sakai &
-- Song, SIGIR 2011: TR09DIV+gr2T and TR09DIV2T):
--   method 'max'    the highest level of the document over the topic's intents
--   method 'count'  the number of intents the document is relevant to (level >= 1); grades ignored
-- A document relevant to no intent gets 0, except one judged negative (TREC -2, spam) for every
-- intent it has a row for: it keeps its highest (negative) level under negative_as = 'unjudged',
-- and gets 0 under 'nonrelevant'. NTCIR's intent-0 rows ('') only say the document was judged.
-- Reads: qrels. Parameters: $source (campaign), $method, $negative_as.
with documents as (
    select
        topic_id,
        doc_id,
        max(level) filter (where intent_id <> '') as max_level,
        count(distinct intent_id) filter (where intent_id <> '' and level >= 1) as covered,
        coalesce(bool_and(level < 0) filter (where intent_id <> ''), false) as all_negative
    from qrels_by_set
    where campaign_id = $source and judgment_set = 'official'
    group by topic_id, doc_id
)

select
    topic_id,
    doc_id,
    case
        when coalesce(max_level, 0) >= 1
            then case when $method = 'max' then max_level else covered end
        when all_negative and $negative_as = 'unjudged' then max_level
        else 0
    end::integer as level
from documents
