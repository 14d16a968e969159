-- reads: answer_input, topic_texts
-- writes: topic_texts
-- params: $campaign_id, $source_file
-- answer_topic_texts: the topic text an answer file gives (TREC RAG 2024's topic, 2025's
-- metadata.narrative; nuggetizer's query) as the topic's title in topic_texts, for the topics of
-- campaign $campaign_id that have no title yet: a title loaded before (`pyeval load topics`, a
-- nugget bank) is kept.
insert into topic_texts (campaign_id, topic_id, title, source_file)
select distinct on (topic_id) $campaign_id, topic_id, trim(topic_text), $source_file
from answer_input
where
    coalesce(trim(topic_text), '') <> ''
    and topic_id not in (select topic_texts.topic_id from topic_texts where topic_texts.campaign_id = $campaign_id)
order by topic_id, line_number
