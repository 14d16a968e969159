-- reads: nugget_input
-- writes: nuggets
-- params: $campaign_id, $bank
-- nugget_insert: store the checked nuggets of a nuggets file (nugget_json_input.sql or
-- nugget_tsv_input.sql) as bank $bank of campaign $campaign_id, in file order.
insert into nuggets (campaign_id, bank, topic_id, nugget_id, nugget_number, text, importance, creator)
select $campaign_id, $bank, topic_id, nugget_id, nugget_number, text, importance, creator
from nugget_input
order by line_number, nugget_number
