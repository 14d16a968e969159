"""What pyeval does differently on a DuckDB before 2.0 (1.4 and 1.5, the versions Ibis, JupySQL
and the DuckDB CLI on PyPI pin), so that one environment holds pyeval and those tools.

On DuckDB 2.0 nothing here changes what pyeval runs.
"""
from __future__ import annotations

import re

import duckdb

#: The installed DuckDB's (major, minor) version.
DUCKDB_VERSION: tuple[int, int] = tuple(int(part) for part in duckdb.__version__.split(".")[:2])

#: True on a DuckDB before 2.0.
BEFORE_2 = DUCKDB_VERSION < (2, 0)

#: ``alter table T add column C TYPE not null default D;``, which DuckDB before 2.0 refuses
#: ("Adding columns with constraints not yet supported").
_ADD_NOT_NULL_COLUMN = re.compile(
    r"alter\s+table\s+(?P<table>[\w.]+)\s+add\s+column\s+(?P<column>\w+)\s+(?P<type>[^;]*?)\s+"
    r"not\s+null\s+default\s+(?P<default>[^;]*?)\s*;",
    re.IGNORECASE,
)


def migration_sql(text: str) -> tuple[str, list[str]]:
    """A migration's SQL as the installed DuckDB runs it, and the statements to run after its
    transaction commits, each in its own. Before 2.0, a column added ``not null default D`` is
    added with its default (which fills the existing rows) in the migration, and set not null
    after it: DuckDB 1.x refuses both in one transaction on a table with a primary key and rows
    ("Cannot create index with outstanding updates")."""
    if not BEFORE_2:
        return text, []
    later: list[str] = []

    def two_steps(m: re.Match) -> str:
        later.append(f"alter table {m['table']} alter column {m['column']} set not null")
        return f"alter table {m['table']} add column {m['column']} {m['type']} default {m['default']};"

    return _ADD_NOT_NULL_COLUMN.sub(two_steps, text), later


def tree_from_duckdb(tree: dict) -> dict:
    """A syntax tree from ``json_serialize_sql`` in DuckDB 2.0's shape, which pyeval's SQL compiler
    (pyeval/core/compile.py) reads. Before 2.0 a CTE's select is ``value.query.node`` (2.0:
    ``value.query_node``), a function's arguments are its ``children`` (2.0: ``arguments``, each
    with its ``name`` and ``expression``), a constant is a typed ``value`` (2.0: a ``literal`` with its kind and
    text) ``true`` is ``CAST('t' AS BOOLEAN)`` and (1.4) a materialized CTE is a ``CTE_NODE``
    around the query that reads it; :func:`tree_for_duckdb` turns it back (and writes a
    cross join as an inner join on true, which DuckDB 1.x prints in the right place)."""
    if not BEFORE_2:
        return tree
    return _walk(tree, _to_2)


def tree_for_duckdb(tree: dict) -> dict:
    """``tree`` in the shape the installed DuckDB's ``json_deserialize_sql`` reads (the inverse
    of :func:`tree_from_duckdb`); a new tree, ``tree`` is left as it is."""
    if not BEFORE_2:
        return tree
    return _walk(tree, _to_1)


def _constant_true() -> dict:
    return {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 18446744073709551615,
            "literal": {"kind": "BOOLEAN", "text": "true"}}


def _walk(node: object, change) -> object:
    """A copy of ``node`` with ``change`` applied to every dict, children first."""
    if isinstance(node, list):
        return [_walk(item, change) for item in node]
    if isinstance(node, dict):
        return change({key: _walk(value, change) for key, value in node.items()})
    return node


def _to_2(node: dict) -> dict:
    if node.get("type") == "CTE_NODE":  # DuckDB 1.4: a materialized CTE wraps the query that reads it
        query = node["child"]
        if not (query.get("cte_map") or {}).get("map"):
            query["cte_map"] = node["cte_map"]
        if node.get("modifiers") and not query.get("modifiers"):
            query["modifiers"] = node["modifiers"]
        return query
    if isinstance(node.get("query"), dict) and "node" in node["query"] and "aliases" in node:  # a CTE
        node["query_node"] = node.pop("query")["node"]
    elif node.get("class") == "FUNCTION" and "children" in node:
        named = node.get("function_name", "").lower() == "struct_pack"  # the fields' names
        node["arguments"] = [{"name": child.get("alias", "") if named else "", "expression": child}
                             for child in node.pop("children")]
    elif node.get("class") == "CONSTANT" and isinstance(node.get("value"), dict):
        value = node["value"]
        if value.get("type", {}).get("id") == "VARCHAR" and not value.get("is_null"):
            node["literal"] = {"kind": "STRING", "text": value["value"]}
    elif (node.get("class") == "CAST" and (node.get("cast_type") or {}).get("id") == "BOOLEAN"
          and (node["child"].get("literal") or {}).get("text") in ("t", "f")):
        return {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": node.get("alias", ""), "query_location": node["child"]["query_location"],
                "literal": {"kind": "BOOLEAN", "text": "true" if node["child"]["literal"]["text"] == "t" else "false"}}
    return node


def _to_1(node: dict) -> dict:
    if "query_node" in node and "aliases" in node:  # a CTE
        node["query"] = {"node": node.pop("query_node"), "named_param_map": []}
    elif node.get("type") == "JOIN" and node.get("ref_type") == "CROSS":
        # DuckDB 1.x prints a cross join as a comma, which binds looser than the joins after
        # it (a cross join b left join c on a.x = c.x would become a lateral join it refuses)
        node.update(ref_type="REGULAR", join_type="INNER", condition=_to_1(_constant_true()))
    elif node.get("class") == "FUNCTION" and "arguments" in node:
        node["children"] = [{**argument["expression"], "alias": argument["name"]} if argument.get("name")
                            else argument["expression"] for argument in node.pop("arguments")]
    elif node.get("class") == "CONSTANT" and "literal" in node:
        literal = node.pop("literal")
        if "value" not in node:  # made by the compiler: a boolean or a string
            kind = {"BOOLEAN": "BOOLEAN", "STRING": "VARCHAR"}[literal["kind"]]
            text = literal["text"]
            node["value"] = {"type": {"id": kind, "type_info": None}, "is_null": False,
                             "value": text == "true" if kind == "BOOLEAN" else text}
        node.pop("query_location_length", None)
    return node


#: DuckDB's main file header: the magic bytes at offset 8, the DuckDB version that made the file
#: (``v2.0.1``, NUL-padded) at offset 52 (DuckDB 0.10 and later).
_MAGIC, _MAGIC_AT = b"DUCK", 8
_MADE_BY_AT, _MADE_BY_LENGTH = 52, 32
_STORAGE_NUMBERS = re.compile(r"version number (\d+), but we can only read versions between (\d+) and (\d+)")


def made_by(path: str) -> str | None:
    """The DuckDB version that made the database file ``path`` (``2.0.1``), as its header
    records it; None when the header records none."""
    try:
        with open(path, "rb") as file:
            header = file.read(_MADE_BY_AT + _MADE_BY_LENGTH)
    except OSError:
        return None
    if header[_MAGIC_AT:_MAGIC_AT + len(_MAGIC)] != _MAGIC:
        return None
    version = header[_MADE_BY_AT:].split(b"\0", 1)[0].decode("ascii", "replace")
    return version.removeprefix("v") or None


def newer_file(path: str, error: Exception) -> str | None:
    """One line for DuckDB's refusal ``error`` to open ``path`` because a newer DuckDB wrote it:
    which DuckDB made the file and what reads it; None for any other error."""
    found = _STORAGE_NUMBERS.search(str(error))
    if found is None and "created with a newer version of DuckDB" not in str(error):
        return None
    maker = made_by(path)
    made = f"made by DuckDB {maker}" if maker else "made by a newer DuckDB"
    storage = f" (storage version {found[1]}; this one reads {found[2]} to {found[3]})" if found else ""
    return (f"{path}: {made}, which the installed DuckDB {duckdb.__version__} cannot read{storage}: "
            f"install DuckDB {maker + ' or later' if maker else 'of that version'} or open a copy the newer DuckDB writes for this one "
            f"(pyeval snapshot --duckdb-version {'.'.join(duckdb.__version__.split('.')[:2])})")
