-- 0002_gain_profiles: named relevance-level -> gain maps per campaign (and optionally per topic).
create table gain_profiles (
    campaign_id varchar not null,
    profile varchar not null,
    topic_id varchar not null default '',
    level integer not null,
    gain double not null,
    primary key (campaign_id, profile, topic_id, level)
);
