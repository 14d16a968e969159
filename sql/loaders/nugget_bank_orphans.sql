-- reads: nugget_assignments, nugget_input
-- produces: nugget_bank_orphans (judgment_set, topic_id, nugget_id, orphans)
-- grain: judgment_set, topic_id, nugget_id
-- params: $campaign_id, $bank
-- nugget_bank_orphans: the first nugget an assignment set of campaign $campaign_id labels in bank
-- $bank that the bank's new nuggets (nugget_input) lack, and how many such labels there are: a
-- bank is replaced only when every assignment of it still names one of its nuggets.
select
    judgment_set,
    topic_id,
    nugget_id,
    count(*) over () as orphans
from nugget_assignments
where
    campaign_id = $campaign_id
    and bank = $bank
    and not exists (
        select 1
        from nugget_input
        where nugget_input.topic_id = nugget_assignments.topic_id and nugget_input.nugget_id = nugget_assignments.nugget_id
    )
order by judgment_set, topic_id, nugget_id
limit 1
