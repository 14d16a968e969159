-- gain_profiles: explicit relevance-level -> gain maps, one row per (campaign, profile, topic,
-- level); topic_id = '' applies to every topic (a topic's own row wins). Levels a profile does
-- not list keep the linear gain (gain = level), as trec_eval's ndcg parameters do. The built-in
-- profiles 'linear' (gain = level) and 'exp' (2^level - 1) need no rows: see sql/views/gain_values.sql.
create table gain_profiles (
    campaign_id varchar not null,
    profile varchar not null,
    topic_id varchar not null default '',
    level integer not null,
    gain double not null,
    primary key (campaign_id, profile, topic_id, level)
);
