-- reads: answers, campaign_inputs, citation_support, derived_run_status, gain_profiles, nugget_assignments, nugget_banks, runs
-- produces: current_inputs (campaign_id, input_kind, input_name, source_file, source_sha256)
-- grain: campaign_id, input_kind, input_name
-- params: none
-- current_inputs: one row per (campaign_id, input_kind, input_name): what the warehouse holds now,
-- with the sha256 an evaluation records for it (evaluation_inputs).
-- Reads: campaign_inputs (qrels and intents: input_name = their judgment set; doclengths: ''), runs (input_kind 'run',
-- input_name = run_id), gain_profiles (input_kind 'gains', input_name = profile; the sha256 of
-- its rows as JSON, topic and level ascending; built-in profiles have no row); the inputs of
-- generated answers (migration 0020; docs/rag.md): nugget_banks (input_kind 'nuggets', input_name
-- = bank), nugget_assignments and citation_support (input_kind 'assignments' and 'support',
-- input_name = their judgment set) and answers (input_kind 'answers', input_name = run_id), each
-- with the sha256 of the file it was loaded from, or, for rows of several files (a run's answers
-- from a TREC RAG file and from nuggetizer's assign output), of their sha256s in order.
-- A fused run whose parents changed since it was made (derived_run_status.is_stale) has the
-- sha256 of its own sha256 and its parents' current ones instead of its own, so that the results
-- stored for it turn stale (stale_results) as those of a replaced run do (docs/fusion.md).
-- DuckDB only (sha256 and to_json): `pyeval publish` copies its rows, not its SQL.
with latest_campaign_inputs as (
    select
        campaign_id,
        input_kind,
        case when input_kind in ('qrels', 'intents') then judgment_set else '' end as input_name,
        source_file,
        source_sha256,
        row_number() over (
            partition by campaign_id, input_kind, judgment_set order by loaded_at desc
        ) as recency
    from campaign_inputs
),

gain_profile_digests as (
    select
        campaign_id,
        profile,
        sha256(
            cast(
                to_json(
                    list({'topic_id': topic_id, 'level': level, 'gain': gain} order by topic_id, level)
                ) as varchar
            )
        ) as source_sha256
    from gain_profiles
    group by campaign_id, profile
),

-- the files each set of assignments or support judgments and each run's answers came from
answer_input_files as (
    select campaign_id, 'assignments' as input_kind, judgment_set as input_name, source_file, source_sha256
    from nugget_assignments
    union all
    select campaign_id, 'support' as input_kind, judgment_set as input_name, source_file, source_sha256
    from citation_support
    union all
    select campaign_id, 'answers' as input_kind, run_id as input_name, source_file, source_sha256
    from answers
)

select
    campaign_id,
    input_kind,
    input_name,
    source_file,
    source_sha256
from latest_campaign_inputs
where recency = 1
union all
select
    runs.campaign_id,
    'run' as input_kind,
    runs.run_id as input_name,
    runs.source_file,
    case
        when derived_run_status.is_stale
            then sha256(runs.source_sha256 || ' from ' || derived_run_status.parents_now)
        else runs.source_sha256
    end as source_sha256
from runs
left join derived_run_status
    on runs.campaign_id = derived_run_status.campaign_id
    and runs.run_id = derived_run_status.run_id
union all
select
    campaign_id,
    'gains' as input_kind,
    profile as input_name,
    null as source_file,
    source_sha256
from gain_profile_digests
union all
select
    campaign_id,
    'nuggets' as input_kind,
    bank as input_name,
    source_file,
    source_sha256
from nugget_banks
union all
select
    campaign_id,
    input_kind,
    input_name,
    min(source_file) as source_file,
    case
        when count(distinct source_sha256) = 1 then min(source_sha256)
        else sha256(string_agg(distinct source_sha256, ' ' order by source_sha256))
    end as source_sha256
from answer_input_files
group by campaign_id, input_kind, input_name
