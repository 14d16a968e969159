-- reads: answer_input
-- writes: answers
-- params: $campaign_id, $source_file, $sha256
-- answer_insert: store the checked answers of an answer file (answer_json_input.sql,
-- answer_tsv_input.sql, or the answers of nuggetizer's assign output) in campaign $campaign_id.
insert into answers (
    campaign_id, run_id, topic_id, response_length, length_given, file_position, source_file, source_sha256
)
select $campaign_id, run_id, topic_id, response_length, length_given, line_number, $source_file, $sha256
from answer_input
order by line_number
