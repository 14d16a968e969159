-- reads: group_values
-- produces: trec_eval_avgjg (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- trec_eval_avgjg: the *_avgjg measures of trec_eval -R qrels_jg: per topic, the mean of a
-- measure over the judgment groups that judged the topic, summed in group order.
-- Reads: group_values(run_id, topic_id, measure, value, judgment_group).
-- Reference: trec_eval 10.0 m_map_avgjg.c (sum over groups, divided by their number).
select
    run_id,
    topic_id,
    measure,
    sum(value order by judgment_group) / count(*) as value
from group_values
group by run_id, topic_id, measure
