-- reads: nugget_records, topic_texts
-- writes: topic_texts
-- params: $campaign_id, $source_file
-- nugget_topic_texts: the query of each topic of nuggetizer's create output as the topic's title
-- (topic_texts), for the topics of campaign $campaign_id that have no title yet: a title loaded by
-- `pyeval load topics` (or by an earlier bank) is kept.
insert into topic_texts (campaign_id, topic_id, title, source_file)
select distinct on (topic_id) $campaign_id, topic_id, trim(query), $source_file
from nugget_records
where
    problem is null
    and coalesce(trim(query), '') <> ''
    and topic_id not in (select topic_texts.topic_id from topic_texts where topic_texts.campaign_id = $campaign_id)
order by topic_id, line_number
