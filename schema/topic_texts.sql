-- topic_texts: One row per (campaign, topic) with a loaded title (`pyeval load topics`).
create table topic_texts (
    campaign_id varchar not null,
    topic_id varchar not null,
    title varchar,
    description varchar,
    source_file varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, topic_id)
);
