-- reads: qrels, topic_texts, topics
-- produces: topic_overview (campaign_id, topic_id, title, description, judgments,
--           positive_judgments)
-- grain: campaign_id, topic_id
-- params: none
-- topic_overview: one row per (campaign_id, topic_id) of topics: its title and description where
-- they were loaded (`pyeval load topics`, table topic_texts; else null), and its judgments (the
-- campaign's default judgment set, campaigns.default_judgment_set).
-- Portable SQL (DuckDB and PostgreSQL).
with judgment_counts as (
    select
        campaign_id,
        topic_id,
        count(*) as judgments,
        count(*) filter (where level > 0) as positive_judgments
    from qrels
    group by campaign_id, topic_id
)

select
    topics.campaign_id,
    topics.topic_id,
    topic_texts.title,
    topic_texts.description,
    coalesce(judgment_counts.judgments, 0) as judgments,
    coalesce(judgment_counts.positive_judgments, 0) as positive_judgments
from topics
left join topic_texts on topics.campaign_id = topic_texts.campaign_id and topics.topic_id = topic_texts.topic_id
left join judgment_counts
    on topics.campaign_id = judgment_counts.campaign_id and topics.topic_id = judgment_counts.topic_id
