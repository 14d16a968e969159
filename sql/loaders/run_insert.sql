-- run_insert: store the checked lines of one run file. Parameters: $campaign_id, $run_id.
insert into run_entries (campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position)
select $campaign_id, $run_id, topic_id, doc_id, rank_given, score, line_number
from run_input
