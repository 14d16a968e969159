-- reads: none
-- produces: file_fields (file_index, <the columns of $columns>)
-- grain: file_index, one row per line
-- params: $path, $delimiter, $columns, $compression, $spaced
-- fast_file_fields: the fields of TREC run or qrels files as the general path would split them,
-- read by DuckDB's CSV reader in one scan, one row per line, each file's lines in file order
-- (the fast path, pyeval/loaders/source.py stage_files). file_index: the file's position in $path.
-- Parameters: $path (a list of absolute paths, no glob character), $delimiter (one TAB or one space),
--   $columns (one 'name': 'VARCHAR' per field), $compression ('gzip' or 'none', told by the
--   magic bytes, never by the name), $spaced (a TAB-separated file whose first line holds spaces).
-- No quoting, escaping, header or type detection; strict mode refuses a line with another number
-- of fields, and text that is not UTF-8. The reader drops a leading byte-order mark and the CR of
-- CRLF, and skips blank lines (stage_files then finds fewer rows than lines). An empty field (two
-- separators in a row) is null. In a $spaced file spaces separate fields too for the general path
-- (its fields are split on runs of whitespace): a field is trimmed of them (trec_eval's
-- results.test pads its scores), and one holding a space inside, or only spaces, is null.
with file_lines as (
    select
        file_index,
        *
    from read_csv(
        $path,
        delim = $delimiter,
        header = false,
        quote = '',
        escape = '',
        strict_mode = true,
        auto_detect = false,
        columns = $columns,
        compression = $compression
    )
)

select
    file_index,
    case
        when not $spaced then columns(* exclude (file_index))
        when not contains(trim(columns(* exclude (file_index))), ' ')
            then nullif(trim(columns(* exclude (file_index))), '')
    end
from file_lines
