-- reads: run_entries
-- produces: run_file_lines (file_position, line)
-- grain: file_position
-- params: $campaign_id, $run_id, $run_tag
-- run_file_lines: the lines of a stored run's TREC run file (topic Q0 docno rank score tag),
-- in file order (file_position): the rank as given, the score in the shortest text that reads
-- back as the same double, the tag $run_tag. A fused run's sha256 is that of these lines, each
-- ended by a newline (pyeval/fusion/store.py), so that the file pyeval export-run writes has
-- the sha256 stored for the run.
select
    file_position,
    concat_ws(' ', topic_id, 'Q0', doc_id, cast(rank_given as varchar), cast(score as varchar), $run_tag) as line
from run_entries
where campaign_id = $campaign_id and run_id = $run_id
