-- reads: batch_runs, run_batch
-- writes: run_entries
-- params: $campaign_id, $first_file, $last_file
-- run_insert: store the checked lines of every run of a load in one statement.
-- Reads: run_batch (every line of the load's runs, pyeval/loaders/runs.py _stage_batch: file_index,
-- line_number, topic_id, doc_id, run_tag, rank_given, score), batch_runs (file_index, run_id).
-- Parameters: $campaign_id; $first_file, $last_file: the runs stored by this statement (a load
-- stores its runs in slices of about a million lines, so that the window's memory stays bounded).
-- trec_rank is the rank under pyeval's default ordering policy 'trec' (trec_eval 10.0
-- form_res_rels.c): score descending, then docno descending in byte order. It is computed
-- here, once per run, rather than by every evaluation (the view ranked_entries reads it).
-- A run given without ranks (run_batch.rank_given null: a dict, namedtuples or a DataFrame
-- without a rank column, pyeval/interop.py, pyeval/loaders/runs.py) is ranked by its scores
-- wherever it enters: its rank_given is its trec_rank, and its file_position puts each topic's
-- lines in trec order (topics in the order they first appear: the first line's number times
-- 2^31, plus the trec rank), so that every ordering ('rank', 'file' too) reads the scores, never
-- the input order. Both come from the one trec_order window: no second sort of the load.
-- The select names its columns as run_entries does: the Python API's resident engine reads it
-- as the relation run_entries of one statement (pyeval/interop.py, sqlfiles.insert_select).
insert into run_entries (
    campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank
)
select
    $campaign_id as campaign_id,
    batch_runs.run_id,
    run_batch.topic_id,
    run_batch.doc_id,
    coalesce(run_batch.rank_given, row_number() over trec_order) as rank_given,
    run_batch.score,
    case
        when run_batch.rank_given is null
            then (min(run_batch.line_number) over (partition by run_batch.file_index, run_batch.topic_id)) * 2147483648
                + row_number() over trec_order
        else run_batch.line_number
    end as file_position,
    row_number() over trec_order as trec_rank
from run_batch
inner join batch_runs on run_batch.file_index = batch_runs.file_index
where run_batch.file_index between $first_file and $last_file
window trec_order as (
    partition by run_batch.file_index, run_batch.topic_id
    order by run_batch.score desc, run_batch.doc_id desc
)
