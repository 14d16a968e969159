-- reads: driver_topics, run_entries
-- produces: driver_lists (list_no, run_id, topic_id, topic_no)
-- grain: list_no
-- params: $runs, $campaign_id, $topic_policy
-- driver_lists: one row per (run, topic) list a Python family (pyeval/drivers/) evaluates, numbered
-- 0.. (list_no) with the topic's number (topic_no, see driver_topics).
-- Reads: qrels (every judgment of the campaign, any intent), run_entries, driver_topics.
-- Parameters: $campaign_id, $runs (run ids, in order), $topic_policy:
--   'qrels'         every topic with a qrels row for every run; a topic the run lacks is an
--                   empty list (pyeval's default, trec_eval -c)
--   'intersection'  the judged topics the run retrieved documents for (ndeval's rows)
-- Reference: docs/measures.md, "Conventions" (topic policies).
with runs as (
    select
        unnest($runs) as run_id,
        generate_subscripts($runs, 1) as run_no
),

run_topics as (
    select distinct
        run_id,
        topic_id
    from run_entries
    where campaign_id = $campaign_id and list_contains($runs, run_id)
)

select
    (row_number() over (order by runs.run_no, driver_topics.topic_no) - 1)::integer as list_no,
    runs.run_id,
    driver_topics.topic_id,
    driver_topics.topic_no
from runs
cross join driver_topics
left join run_topics
    on runs.run_id = run_topics.run_id and driver_topics.topic_id = run_topics.topic_id
where $topic_policy = 'qrels' or run_topics.run_id is not null
