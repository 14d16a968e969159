-- reads: assignment_resolved
-- writes: nugget_assignments
-- params: $campaign_id, $judgment_set, $bank, $source_file, $sha256
-- assignment_insert: store the checked assignments of an assignments file as assignment set
-- $judgment_set of campaign $campaign_id, labelling the nuggets of bank $bank.
-- Rows go in as staged, in the file's order for the most part (no sort: a table has no order).
insert into nugget_assignments (
    campaign_id, judgment_set, bank, run_id, topic_id, nugget_id, label, assessor, source_file, source_sha256
)
select $campaign_id, $judgment_set, $bank, run_id, topic_id, nugget_id, label, assessor, $source_file, $sha256
from assignment_resolved
