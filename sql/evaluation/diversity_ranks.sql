-- reads: evaluation_gain_codes, evaluation_ranked_gains
-- produces: evaluation_ranks (run_id, topic_id, rank, doc_id, score, level)
-- grain: run_id, topic_id, rank
-- params: none
-- diversity_ranks (temp table evaluation_ranks of a D- or DIN-staging): the judged documents of
-- every ranked list with their rank and the level code of the gain they earn there. No run
-- score: the measures that read one (Compat) are ad hoc only.
select
    evaluation_ranked_gains.run_id,
    evaluation_ranked_gains.topic_id,
    evaluation_ranked_gains.rank,
    evaluation_ranked_gains.doc_id,
    null::double as score,
    evaluation_gain_codes.level
from evaluation_ranked_gains
inner join evaluation_gain_codes
    on
        evaluation_ranked_gains.topic_id = evaluation_gain_codes.topic_id
        and evaluation_ranked_gains.gain = evaluation_gain_codes.gain
