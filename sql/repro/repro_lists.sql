-- reads: ranked_entries
-- produces: repro_lists (side, topic_id, rank, score, doc_code)
-- grain: side, topic_id, rank
-- params: $campaign_id, $run_id, $rep_campaign_id, $rep_run_id, $trim
-- repro_lists: the two ranked lists a document-order comparison of `pyeval repro` reads
-- (docs/reproducibility.md section 2): the original run ('original') and its reproduction
-- ('reproduced'), each ranked as trec_eval ranks (score descending, then docno descending:
-- repro_eval's break_ties on a score-sorted file) and trimmed to its first $trim documents
-- (repro_eval's trim), on the topics both runs retrieved for. doc_code numbers the documents of
-- both lists in byte order of their ids (one number per id): Kendall's tau Union (KTU) compares
-- these codes, as repro_eval compares positions in the sorted union of a topic's two lists, and
-- RBO matches documents by them. Equal scores are adjacent in a list: pyeval/repro/experiment.py
-- reads the tie groups Corsi & Urbano's tie-aware RBO needs from the score column. One window
-- without partitions (a window per side and topic cost 3x more; bench/bench_repro.py).
with trimmed as (
    select 'original' as side, topic_id, rank, doc_id, score
    from ranked_entries
    where campaign_id = $campaign_id and run_id = $run_id and ordering = 'trec' and rank <= $trim

    union all

    select 'reproduced' as side, topic_id, rank, doc_id, score
    from ranked_entries
    where campaign_id = $rep_campaign_id and run_id = $rep_run_id and ordering = 'trec' and rank <= $trim
),

shared_topics as (
    select topic_id
    from trimmed
    group by topic_id
    having count(distinct side) = 2
)

select
    trimmed.side,
    trimmed.topic_id,
    trimmed.rank,
    trimmed.score,
    dense_rank() over (order by trimmed.doc_id) as doc_code
from trimmed
inner join shared_topics on trimmed.topic_id = shared_topics.topic_id
order by trimmed.side, trimmed.topic_id, trimmed.rank
