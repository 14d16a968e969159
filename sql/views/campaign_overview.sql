-- reads: campaigns, document_lengths, intents, qrels, run_entries, runs, topics
-- produces: campaign_overview (campaign_id, qrels_kind, topics, judgments, positive_judgments,
--           intents, runs, run_entries, document_lengths, source_campaign_id, created_at,
--           default_judgment_set)
-- grain: campaign_id
-- params: none
-- campaign_overview: one row per campaign with the counts of what it holds (`pyeval list`);
-- judgments and intents count the campaign's default judgment set (default_judgment_set;
-- docs/judgments.md).
with judgment_counts as (
    select
        campaign_id,
        count(*) as judgments,
        count(*) filter (where level > 0) as positive_judgments
    from qrels
    group by campaign_id
),

intent_counts as (
    select campaign_id, count(*) as intents
    from intents
    group by campaign_id
),

topic_counts as (
    select campaign_id, count(*) as topics
    from topics
    group by campaign_id
),

run_counts as (
    select campaign_id, count(*) as runs
    from runs
    group by campaign_id
),

entry_counts as (
    select campaign_id, count(*) as run_entries
    from run_entries
    group by campaign_id
),

length_counts as (
    select campaign_id, count(*) as document_lengths
    from document_lengths
    group by campaign_id
)

select
    campaigns.campaign_id,
    campaigns.qrels_kind,
    coalesce(topic_counts.topics, 0) as topics,
    coalesce(judgment_counts.judgments, 0) as judgments,
    coalesce(judgment_counts.positive_judgments, 0) as positive_judgments,
    coalesce(intent_counts.intents, 0) as intents,
    coalesce(run_counts.runs, 0) as runs,
    coalesce(entry_counts.run_entries, 0) as run_entries,
    coalesce(length_counts.document_lengths, 0) as document_lengths,
    campaigns.source_campaign_id,
    campaigns.created_at,
    campaigns.default_judgment_set
from campaigns
left join topic_counts on campaigns.campaign_id = topic_counts.campaign_id
left join judgment_counts on campaigns.campaign_id = judgment_counts.campaign_id
left join intent_counts on campaigns.campaign_id = intent_counts.campaign_id
left join run_counts on campaigns.campaign_id = run_counts.campaign_id
left join entry_counts on campaigns.campaign_id = entry_counts.campaign_id
left join length_counts on campaigns.campaign_id = length_counts.campaign_id
