-- defines: json_id, control_problem, json_id_problem, word_count, is_json_object, length_state
-- params: none
-- The rules the loaders of generated answers share (pyeval/loaders/rag_files.py; docs/rag.md),
-- defined once as macros of the loading connection before a load stages its rows.

-- An identifier (topic, run) given as a JSON value: a string as it is, an integer as its digits
-- (nuggetizer's qid and TREC RAG's topic_id are strings; a number is accepted as its text).
create or replace temp macro json_id(value) as value ->> '$';

-- A name that holds a control character (Unicode category Cc: U+0000-U+001F, U+007F-U+009F) is
-- refused, as everywhere pyeval makes a name (pyeval/errors.py require_printable): every name is
-- one line wherever it is printed, exported or written into a run file. Null when it holds none.
create or replace temp macro control_problem(name, text) as
    case
        when regexp_matches(text, '[\x{00}-\x{1f}\x{7f}-\x{9f}]')
            then name || ' ' || to_json(text)::varchar || ' holds a control character'
    end;

-- What is wrong with such an identifier, named `name` in the message: absent or null, not a string
-- or an integer, empty, or holding a control character; null when it is fine.
create or replace temp macro json_id_problem(name, value) as
    case
        when value is null or json_type(value) = 'NULL' then 'no ' || name
        when json_type(value) not in ('VARCHAR', 'BIGINT', 'UBIGINT')
            then name || ' is not a string (' || lower(json_type(value)) || ')'
        when json_id(value) = '' then name || ' is empty'
        else control_problem(name, json_id(value))
    end;

-- The number of words of a text: its maximal runs of characters that are not whitespace, as
-- Python's str.split() counts them (the Unicode whitespace of str.isspace()): the rule of the
-- TREC RAG validators (ragnarok's compute_response_length), without their NFKC normalisation
-- (which changes the count only for the few compatibility characters that decompose to spaces).
create or replace temp macro word_count(text) as
    len(regexp_extract_all(
        coalesce(text, ''),
        '[^\x{09}-\x{0d}\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+'
    ));

-- A line that holds a JSON object: it starts with '{' once leading whitespace is dropped (the
-- plain test first, which every line of a well-formed file passes without trimming).
create or replace temp macro is_json_object(line) as
    case when starts_with(line, '{') then true else starts_with(ltrim(line), '{') end;

-- A response_length given as JSON: 'absent' (missing or null), 'given' (a non-negative integer
-- that fits an integer) or 'bad'.
create or replace temp macro length_state(value) as
    case
        when value is null or json_type(value) = 'NULL' then 'absent'
        when json_type(value) in ('BIGINT', 'UBIGINT') and try_cast(json_id(value) as integer) >= 0 then 'given'
        else 'bad'
    end;
