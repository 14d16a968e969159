-- reads: run_entries
-- produces: ranked_entries (campaign_id, run_id, topic_id, ordering, rank, doc_id, score)
-- grain: campaign_id, run_id, topic_id, ordering, rank
-- params: none
-- ranked_entries: one row per (campaign_id, run_id, topic_id, ordering, rank): each run's
-- entries ranked under each ordering policy.
-- Policies (docs/input-files.md section 4; docs/measures.md "Conventions"):
--   'trec' score descending, then docno descending in byte order (trec_eval, pytrec_eval,
--          ndeval -traditional); pyeval's default. Ranked once on load (run_entries.trec_rank,
--          sql/loaders/run_insert.sql)
--   'trec-asc' score descending, then docno ascending in byte order (pyndeval; ir_measures'
--          judged, msmarco and compat providers)
--   'rank' the rank column as given, ascending (ndeval); equal ranks keep file order
--   'file' file order (NTCIREVAL)
-- A filter on `ordering` selects one branch; the others are never computed.
select
    campaign_id,
    run_id,
    topic_id,
    'trec' as ordering,
    trec_rank as rank,
    doc_id,
    score
from run_entries

union all

select
    campaign_id,
    run_id,
    topic_id,
    'trec-asc' as ordering,
    row_number() over (
        partition by campaign_id, run_id, topic_id order by score desc, doc_id asc
    ) as rank,
    doc_id,
    score
from run_entries

union all

select
    campaign_id,
    run_id,
    topic_id,
    'rank' as ordering,
    row_number() over (
        partition by campaign_id, run_id, topic_id order by rank_given asc, file_position asc
    ) as rank,
    doc_id,
    score
from run_entries

union all

select
    campaign_id,
    run_id,
    topic_id,
    'file' as ordering,
    row_number() over (
        partition by campaign_id, run_id, topic_id order by file_position asc
    ) as rank,
    doc_id,
    score
from run_entries
