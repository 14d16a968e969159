-- pool_documents: One row per (campaign, pool, topic, document) pooled: its best rank over the pooled
-- runs, the rank stratum it was drawn from, the first run that reached it, and the runs and teams
-- (sorted) that contributed it within their depth.
create table pool_documents (
    campaign_id varchar not null,
    pool_name varchar not null,
    topic_id varchar not null,
    doc_id varchar not null,
    best_rank integer not null,
    stratum integer not null,
    first_run varchar not null,
    runs varchar[] not null,
    teams varchar[] not null,
    primary key (campaign_id, pool_name, topic_id, doc_id)
);
