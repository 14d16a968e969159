-- reads: run_entries
-- writes: run_entries
-- params: $campaign_id
-- trec_eval_prefs_order: rewrite the given ranks of a campaign's runs to trec_eval's order for
-- preference measures: score descending, then docno ascending in byte order (form_prefs_counts.c
-- comp_sim_docno; every other trec_eval measure breaks ties by docno descending). The drop-in
-- then evaluates with ordering 'rank', so that -M cuts the list in this order too.
-- Reads and writes: run_entries. Parameters: $campaign_id.
update run_entries
set rank_given = ordered.prefs_rank
from (
    select
        run_id,
        topic_id,
        doc_id,
        row_number() over (partition by run_id, topic_id order by score desc, doc_id asc) as prefs_rank
    from run_entries
    where campaign_id = $campaign_id
) as ordered
where
    run_entries.campaign_id = $campaign_id
    and run_entries.run_id = ordered.run_id
    and run_entries.topic_id = ordered.topic_id
    and run_entries.doc_id = ordered.doc_id
