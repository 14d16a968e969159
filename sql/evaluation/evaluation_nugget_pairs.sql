-- reads: answers, nugget_assignments, nuggets
-- produces: evaluation_nugget_pairs (run_id, topic_id, answered, response_length, vital_nuggets, okay_nuggets)
-- grain: run_id, topic_id
-- params: $campaign_id, $judgment_set, $runs, $topic_policy
-- evaluation_nugget_pairs: one row per (run_id, topic_id) the measures of generated answers score
-- (sql/metrics/metric_nuggets.sql; docs/rag.md "Measures"), whether the run answered the topic
-- (a row of answers), the answer's length in words, and how many vital and okay nuggets the topic
-- has in the bank (what the nugget scores divide by).
-- The scored topics: those of the bank the judgment set $judgment_set assigns nuggets of (an
-- assignment set names one bank), every topic with a nugget in it; a set without assignments (a
-- citation support set, or none): every topic some run of the campaign answered (no nugget). The
-- scored runs: the runs of $runs that answered at least one topic of the campaign (a run without
-- answers is not scored by these measures; pyeval.core.evaluation warns and names it).
-- $topic_policy 'qrels': every scored topic for every scored run, an unanswered one with answered
-- false (its measures are 0, as a topic missing from a run); 'intersection': the answered ones only
-- (nuggetizer's calculate_global_metrics averages over these).
with bank as (
    select distinct bank
    from nugget_assignments
    where campaign_id = $campaign_id and judgment_set = $judgment_set
),

answered as (
    select
        run_id,
        topic_id,
        response_length
    from answers
    where campaign_id = $campaign_id
),

scored_topics as (
    select
        nuggets.topic_id,
        count(*) filter (where nuggets.importance = 'vital') as vital_nuggets,
        count(*) filter (where nuggets.importance = 'okay') as okay_nuggets
    from nuggets
    inner join bank on nuggets.bank = bank.bank
    where nuggets.campaign_id = $campaign_id
    group by nuggets.topic_id
    union all
    select distinct
        topic_id,
        0 as vital_nuggets,
        0 as okay_nuggets
    from answered
    where not exists (select 1 from bank)
),

scored_runs as (
    select distinct requested.run_id
    from (select unnest($runs) as run_id) as requested
    inner join answered on requested.run_id = answered.run_id
)

select
    scored_runs.run_id,
    scored_topics.topic_id,
    answered.run_id is not null as answered,
    answered.response_length,
    scored_topics.vital_nuggets,
    scored_topics.okay_nuggets
from scored_runs
cross join scored_topics
left join answered
    on scored_runs.run_id = answered.run_id and scored_topics.topic_id = answered.topic_id
where $topic_policy = 'qrels' or answered.run_id is not null
