-- 0011_judgment_sets: a campaign holds any number of named judgment sets (issue 26;
-- docs/judgments.md). judgment_sets records each set's provenance; qrels, intents and the
-- campaign's recorded qrels/intents inputs are keyed by set; every stored evaluation, per-topic
-- score, mean and significance test records the set it was computed under. What the warehouse
-- held before becomes the set 'official' (kind 'human'), so every stored score stays current and
-- unchanged. Evaluation inputs of kind qrels/intents are named by their set ('official'), as
-- current_inputs now names them (sql/views/current_inputs.sql).
-- Forward-only: never edit this file once merged.

create table judgment_sets (
    campaign_id varchar not null,
    judgment_set varchar not null,
    kind varchar not null check (kind in ('human', 'llm', 'merged', 'derived')),
    judge varchar,
    guideline_sha256 varchar,
    description varchar,
    parent_sets varchar[] not null default [],
    derivation varchar,
    parameters varchar,
    source_file varchar,
    source_sha256 varchar,
    created_at timestamp not null default current_timestamp,
    primary key (campaign_id, judgment_set)
);

insert into judgment_sets (campaign_id, judgment_set, kind, source_file, source_sha256, created_at)
select
    campaigns.campaign_id,
    'official',
    'human',
    recorded.source_file,
    recorded.source_sha256,
    coalesce(recorded.loaded_at, campaigns.created_at)
from campaigns
left join (
    select
        campaign_id,
        source_file,
        source_sha256,
        loaded_at,
        row_number() over (partition by campaign_id order by loaded_at desc) as recency
    from campaign_inputs
    where input_kind = 'qrels'
) as recorded on campaigns.campaign_id = recorded.campaign_id and recorded.recency = 1
where
    campaigns.campaign_id in (select campaign_id from qrels)
    or campaigns.campaign_id in (select campaign_id from intents)
    or recorded.campaign_id is not null;

alter table qrels add column judgment_set varchar not null default 'official';

create table intents_by_set (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null,
    probability double not null check (probability >= 0 and probability <= 1),
    intent_type varchar not null default 'inf' check (intent_type in ('inf', 'nav')),
    judgment_set varchar not null default 'official',
    primary key (campaign_id, judgment_set, topic_id, intent_id)
);
insert into intents_by_set (campaign_id, topic_id, intent_id, probability, intent_type, judgment_set)
select campaign_id, topic_id, intent_id, probability, intent_type, 'official' from intents;
drop table intents;
alter table intents_by_set rename to intents;

alter table campaign_inputs add column judgment_set varchar not null default 'official';

update evaluation_inputs set input_name = 'official' where input_kind in ('qrels', 'intents');

alter table evaluations add column judgment_set varchar not null default 'official';
alter table topic_scores add column judgment_set varchar not null default 'official';
alter table evaluation_means add column judgment_set varchar not null default 'official';
alter table significance_tests add column judgment_set varchar not null default 'official';
alter table pairwise_tests add column judgment_set varchar not null default 'official';

-- Comparisons of judgment sets (pyeval judgments compare): one row per comparison, and its
-- label agreement (per topic and overall), confusion counts and score/ranking agreement.
create table judgment_comparisons (
    comparison_id bigint primary key,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    comparison varchar not null check (comparison in ('labels', 'scores')),
    measure varchar,
    settings varchar,
    warnings varchar,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table judgment_agreement (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    topic_id varchar,
    coefficient varchar not null,
    threshold integer,
    value double,
    units bigint not null,
    reference_only bigint not null,
    candidate_only bigint not null,
    warning varchar
);

create table judgment_confusion (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    topic_id varchar,
    reference_level integer,
    candidate_level integer,
    documents bigint not null
);

create table judgment_ranking_agreement (
    comparison_id bigint not null,
    campaign_id varchar not null,
    reference_set varchar not null,
    candidate_set varchar not null,
    measure varchar not null,
    statistic varchar not null,
    top_k integer,
    value double,
    runs integer not null,
    topics integer,
    warning varchar
);
