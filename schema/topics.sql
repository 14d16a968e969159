-- topics: One row per (campaign, topic): the campaign's topic set (from qrels and intents files).
create table topics (
    campaign_id varchar not null,
    topic_id varchar not null,
    primary key (campaign_id, topic_id)
);
