-- reads: none
-- produces: rag_file_rows (line)
-- grain: one row per line, in file order
-- params: $path, $compression
-- rag_file_lines: the lines of one file of generated answers, nuggets or their judgments (JSON
-- lines or TSV; pyeval/loaders/rag_files.py, docs/rag.md "Formats"), read whole by DuckDB's CSV
-- reader in one scan: no field separator a UTF-8 JSON or TSV line can hold unescaped (0x1F), no
-- quoting, escaping or header. A blank line is a null line (its number is kept); a leading
-- byte-order mark and the CR of CRLF are dropped. Text that is not UTF-8, or a line holding 0x1F,
-- or a line longer than the reader's 2 MB, is an error of the reader: the loader then reads the file
-- in Python (pyeval/loaders/source.py read_lines), which names a bad line and reads any length.
-- Parameters: $path (absolute path), $compression ('gzip' or 'none', told by the magic bytes).
select line
from read_csv(
    $path,
    delim = chr(31),
    header = false,
    quote = '',
    escape = '',
    strict_mode = true,
    auto_detect = false,
    columns = {'line': 'VARCHAR'},
    compression = $compression
)
