-- run_insert: store the checked lines of one run file. Parameters: $campaign_id, $run_id.
-- trec_rank is the rank under pyeval's default ordering policy 'trec' (trec_eval 10.0
-- form_res_rels.c): score descending, then docno descending in byte order. It is computed
-- here, once per run, rather than by every evaluation (the view ranked_entries reads it).
insert into run_entries (
    campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank
)
select
    $campaign_id,
    $run_id,
    topic_id,
    doc_id,
    rank_given,
    score,
    line_number,
    row_number() over (partition by topic_id order by score desc, doc_id desc)
from run_input
