-- reads: evaluation_lists, evaluation_ranks, ntcir_printed, ntcir_topic_values, topic_levels
-- produces: ntcireval_output (line)
-- grain: one row per printed line, in print order
-- params: $campaign_id, $judged_only
-- ntcireval_output: the lines NTCIREVAL's compute prints for every topic (docs/input-files.md
-- section 10.4), topics in byte order (NTCIRsplitqrels' `sort -u` tid file).
-- Reads the run's list as the stages evaluation_ranks and evaluation_lists give it (ordering
-- 'file': NTCIREVAL's res files keep file order; the depth cut is TRECsplitruns' depth; -j
-- removes unjudged documents before ranks are counted, as label -j does);
-- ntcir_printed(position, label, measure): the metric lines in compute's order, label = "NAME="
-- with its padding; ntcir_topic_values(topic_id, measure, value).
-- Per topic:
--   TID # syslen=L jrel=R jnonrel=N     L after the depth cut (and -j); R = judged level >= 1;
--                                       N = judged level 0
--   TID # r1=r1 rp=rp                   r1: first rank with level >= 1; rp: first rank holding the
--                                       highest level present in the list (0 when none)
--   TID NAME=<padding>%.4f              one line per ntcir_printed row
-- A topic without a relevant document prints nothing (compute: "no rel doc"); with -j neither
-- does a topic without a judged non-relevant document ("no judged nonrel").
with topics as (
    select
        topic_id,
        coalesce(sum(judgments) filter (where level > 0), 0) as jrel,
        coalesce(sum(judgments) filter (where level = 0), 0) as jnonrel
    from topic_levels
    where campaign_id = $campaign_id
    group by topic_id
    having jrel > 0 and (not $judged_only or jnonrel > 0)
),

lists as (
    select
        evaluation_lists.topic_id,
        evaluation_lists.num_ret as syslen,
        min(evaluation_ranks.rank) filter (where evaluation_ranks.level >= 1) as r1,
        max(evaluation_ranks.level) filter (where evaluation_ranks.level >= 1) as top_level
    from evaluation_lists
    left join evaluation_ranks
        on evaluation_lists.run_id = evaluation_ranks.run_id and evaluation_lists.topic_id = evaluation_ranks.topic_id
    group by evaluation_lists.topic_id, evaluation_lists.num_ret
),

preferred as (
    select
        evaluation_ranks.topic_id,
        min(evaluation_ranks.rank) as rp
    from evaluation_ranks
    inner join lists on evaluation_ranks.topic_id = lists.topic_id and evaluation_ranks.level = lists.top_level
    group by evaluation_ranks.topic_id
),

headers as (
    select
        topics.topic_id,
        topics.jrel,
        topics.jnonrel,
        coalesce(lists.syslen, 0) as syslen,
        coalesce(lists.r1, 0) as r1,
        coalesce(preferred.rp, 0) as rp
    from topics
    left join lists on topics.topic_id = lists.topic_id
    left join preferred on topics.topic_id = preferred.topic_id
),

lines as (
    select
        topic_id,
        -2 as position,
        topic_id || ' # syslen=' || syslen || ' jrel=' || jrel || ' jnonrel=' || jnonrel as line
    from headers
    union all
    select
        topic_id,
        -1 as position,
        topic_id || ' # r1=' || r1 || ' rp=' || rp as line
    from headers
    union all
    select
        headers.topic_id,
        ntcir_printed.position,
        headers.topic_id || ' ' || ntcir_printed.label || printf('%.4f', ntcir_topic_values.value) as line
    from headers
    cross join ntcir_printed
    left join ntcir_topic_values
        on
            headers.topic_id = ntcir_topic_values.topic_id
            and ntcir_printed.measure = ntcir_topic_values.measure
)

select line
from lines
order by topic_id, position
