-- reads: evaluation_values, trec_printed, trec_summary_values
-- produces: trec_eval_output (line)
-- grain: one row per printed line, in print order
-- params: $per_topic, $run_tag, $num_rel_all, $summary
-- trec_eval_output: the lines trec_eval 10.0 prints, in its order (docs/input-files.md section 10.2).
-- Reads: evaluation_values(topic_id, measure, value, value_text): per-topic values;
--        trec_summary_values(measure, value): the combined values;
--        trec_printed(position, label, measure, is_per_topic, is_summary, is_integer, is_text,
--                     is_runid): the measures to print, in trec_eval's table order.
-- Parameters: $per_topic (-q), $summary (not -n), $run_tag, $num_rel_all (trec_eval -c's
-- recount of num_rel over every qrels line with rel > 0, or null).
-- Layout: "%-22s\t%s\t%6.4f"; counts "%ld"; relstring quoted; topics in byte order.
with topic_lines as (
    select
        0 as block,
        evaluation_values.topic_id as topic_order,
        trec_printed.position,
        printf('%-22s', trec_printed.label) || chr(9) || evaluation_values.topic_id || chr(9)
        || case
            when trec_printed.is_text then '''' || coalesce(evaluation_values.value_text, '') || ''''
            when trec_printed.is_integer then printf('%d', round(evaluation_values.value)::bigint)
            else printf('%6.4f', evaluation_values.value)
        end as line
    from evaluation_values
    inner join trec_printed on evaluation_values.measure = trec_printed.measure
    where $per_topic and trec_printed.is_per_topic
),

summary_lines as (
    select
        1 as block,
        '' as topic_order,
        trec_printed.position,
        printf('%-22s', trec_printed.label) || chr(9) || 'all' || chr(9)
        || case
            when trec_printed.is_runid then $run_tag
            when trec_printed.is_integer
                then printf(
                    '%d',
                    round(
                        case
                            when trec_printed.label = 'num_rel' and $num_rel_all is not null
                                then $num_rel_all
                            else trec_summary_values.value
                        end
                    )::bigint
                )
            else printf('%6.4f', trec_summary_values.value)
        end as line
    from trec_printed
    left join trec_summary_values on trec_printed.measure = trec_summary_values.measure
    where $summary and trec_printed.is_summary
)

select line
from (
    select block, topic_order, position, line from topic_lines
    union all
    select block, topic_order, position, line from summary_lines
)
order by block, topic_order, position
