-- reads: intent_input
-- produces: intent_probability_sums (topic_id, total)
-- grain: topic_id
-- params: $tolerance
-- intent_probability_sums: topics whose Pr(i|q) do not sum to 1 within $tolerance (a warning:
-- NTCIREVAL uses probabilities as given, and files round them to 4 decimals).
-- Reads: intent_input.
select topic_id, sum(probability) as total
from intent_input
where not is_blank
group by topic_id
having abs(sum(probability) - 1) > $tolerance
order by topic_id
