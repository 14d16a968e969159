-- reads: qrels_batch
-- produces: qrels_batch_duplicates (file_index, line_number, first_file, first_line)
-- grain: file_index, line_number
-- params: none
-- qrels_batch_duplicates: the first judgment (topic, intent, document) that a later file of a
-- qrels load gives again, in file then line order (each file alone was checked by
-- qrels_problems.sql). Reads: qrels_batch (file_index, then the columns of qrels_input).
-- One row at most: file_index, line_number, and where the judgment was given first.
with judgments as (
    select
        file_index,
        line_number,
        topic_id,
        intent_id,
        doc_id,
        min(file_index) over (partition by topic_id, intent_id, doc_id) as first_file
    from qrels_batch
    where not is_blank
)

select
    later.file_index,
    later.line_number,
    earlier.file_index as first_file,
    earlier.line_number as first_line
from judgments as later
inner join judgments as earlier
    on
        later.topic_id = earlier.topic_id
        and later.intent_id = earlier.intent_id
        and later.doc_id = earlier.doc_id
        and earlier.file_index = later.first_file
where later.file_index > later.first_file
order by later.file_index, later.line_number
limit 1
