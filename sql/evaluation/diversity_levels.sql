-- reads: evaluation_document_gains, evaluation_gain_codes
-- produces: evaluation_levels (topic_id, level, judgments)
-- grain: topic_id, level
-- params: none
-- diversity_levels (temp table evaluation_levels of a D- or DIN-staging): one row per (topic_id,
-- level code): the judged documents whose global gain the code stands for (0 for a gain only a
-- DIN list earns). R = documents with GG > 0, N = judged documents with GG = 0.
select
    evaluation_gain_codes.topic_id,
    evaluation_gain_codes.level,
    count(evaluation_document_gains.doc_id) as judgments
from evaluation_gain_codes
left join evaluation_document_gains
    on
        evaluation_gain_codes.topic_id = evaluation_document_gains.topic_id
        and evaluation_gain_codes.gain = evaluation_document_gains.gain
group by evaluation_gain_codes.topic_id, evaluation_gain_codes.level
