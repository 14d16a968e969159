-- reads: doclength_input
-- writes: document_lengths
-- params: $campaign_id
-- doclength_insert: store one length per document (identical duplicates once).
-- Parameters: $campaign_id.
insert into document_lengths (campaign_id, doc_id, length)
select distinct $campaign_id, doc_id, length
from doclength_input
