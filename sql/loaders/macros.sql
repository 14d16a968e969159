-- defines: integer_value, is_decimal, decimal_value, finite_decimal_value, identifier_problem
-- params: none
-- The typing rules every loader shares, defined once as macros of the loading connection
-- (created before a load stages its rows: pyeval/loaders/staging.py stage_rows, and
-- source.py stage_file for the fast path). A value that breaks a rule is null; the loader's
-- *_problems.sql then names its line. Reference: docs/input-files.md sections 2, 3.1 and 6.

-- An integer with an optional sign (no '1_000', '1.0', '1e2' or hex, which DuckDB's cast
-- alone would take), as a bigint; null if it is none or does not fit.
create or replace temp macro integer_value(text) as
    case when regexp_full_match(text, '[+-]?[0-9]+') then try_cast(text as bigint) end;

-- A plain decimal number as C strtod reads one: no '1_000', hex, inf or nan.
create or replace temp macro is_decimal(text) as
    regexp_full_match(text, '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?');

-- A decimal number as the nearest double (DuckDB's correctly rounded cast gives what strtod
-- gives; '1e999' is inf); null if it is none.
create or replace temp macro decimal_value(text) as
    case when is_decimal(text) then try_cast(text as double) end;

-- The same, and null when it overflows to an infinity (run scores, preference levels).
create or replace temp macro finite_decimal_value(text) as
    case when is_decimal(text) and isfinite(try_cast(text as double)) then try_cast(text as double) end;

-- What is wrong with an identifier (topic, document, intent, run tag) given as a column (a
-- Parquet file, an Arrow table) rather than as a field of a line: 'null', 'empty', or
-- 'whitespace' (an ASCII space, TAB, LF, vertical tab, form feed, CR or NUL, which would split
-- or end the field of a line); null when it is a value a text file could give.
create or replace temp macro identifier_problem(value) as
    case
        when value is null then 'null'
        when value = '' then 'empty'
        -- seven contains() are about 2.5 times faster than one regular expression
        when contains(value, ' ') or contains(value, chr(9)) or contains(value, chr(10)) or contains(value, chr(11))
            or contains(value, chr(12)) or contains(value, chr(13)) or contains(value, chr(0)) then 'whitespace'
    end;
