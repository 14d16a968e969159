-- reads: evaluation_values, trec_printed, trec_zscores
-- produces: trec_eval_zscores (run_id, topic_id, measure, value, value_text)
-- grain: run_id, topic_id, measure
-- params: none
-- trec_eval_zscores: trec_eval -Z: each per-topic value as a z-score against the mean and
-- standard deviation a reference file gives for (topic, measure).
-- Reads: evaluation_values(run_id, topic_id, measure, value, value_text),
--        trec_printed(label, measure, ...), trec_zscores(topic_id, label, mean, sd).
-- A missing (topic, measure), or sd = 0 with value <> mean, gives -1000000; sd = 0 and
-- value = mean gives 0; num_q stays a count of topics. Reference: trec_eval 10.0
-- convert_zscores.c (MISSING_ZSCORE_VALUE) and out.test.aqZ.
select
    evaluation_values.run_id,
    evaluation_values.topic_id,
    evaluation_values.measure,
    case
        when trec_printed.is_text then null
        when trec_printed.label = 'num_q' then evaluation_values.value  -- a count of topics
        when trec_zscores.mean is null then -1000000.0
        when trec_zscores.sd <> 0 then (evaluation_values.value - trec_zscores.mean) / trec_zscores.sd
        when evaluation_values.value = trec_zscores.mean then 0.0
        else -1000000.0
    end as value,
    evaluation_values.value_text
from evaluation_values
inner join trec_printed on evaluation_values.measure = trec_printed.measure
left join trec_zscores
    on
        evaluation_values.topic_id = trec_zscores.topic_id
        and trec_printed.label = trec_zscores.label
