-- reads: batch_keys
-- produces: batch_repeats (file_index, line_number, first_file, first_line)
-- grain: file_index, line_number
-- params: $conflicts_only
-- batch_repeats: the first line of a later file of a load that gives again a key an earlier file
-- of the same load gives (a judgment, an intent, a document's length), in file then line order.
-- Each file alone was checked by its loader's problems query; this is the check across files.
-- Reads: batch_keys(file_index, line_number, batch_key, batch_value): every data line of the
-- load's files, its key and the value it gives the key (the loader defines the view).
-- Parameters: $conflicts_only: true when a repeat with the same value is allowed (document
-- lengths: identical duplicate lines are stored once), false when any repeat is an error.
-- One row at most: file_index, line_number, and the file and line that gave the key first.
with keyed as (
    select
        file_index,
        line_number,
        batch_key,
        batch_value,
        min(file_index) over (partition by batch_key) as first_file
    from batch_keys
)

select
    later.file_index,
    later.line_number,
    earlier.file_index as first_file,
    min(earlier.line_number) as first_line
from keyed as later
inner join keyed as earlier
    on
        later.batch_key = earlier.batch_key
        and earlier.file_index = later.first_file
where
    later.file_index > later.first_file
    and (not $conflicts_only or later.batch_value is distinct from earlier.batch_value)
group by later.file_index, later.line_number, earlier.file_index
order by later.file_index, later.line_number
limit 1
