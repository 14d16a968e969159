-- reads: support_input
-- writes: citation_support
-- params: $campaign_id, $judgment_set, $source_file, $sha256
-- support_insert: store the checked support judgments of a citation support file as judgment set
-- $judgment_set of campaign $campaign_id.
-- Rows go in as staged, in the file's order for the most part (no sort: a table has no order).
insert into citation_support (
    campaign_id, judgment_set, run_id, topic_id, sentence_number, doc_id, label, assessor, source_file, source_sha256
)
select $campaign_id, $judgment_set, run_id, topic_id, sentence_number, doc_id, label, assessor, $source_file, $sha256
from support_input
