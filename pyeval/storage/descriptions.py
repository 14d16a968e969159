"""Descriptions of the public tables, views and columns, put on them with ``COMMENT ON`` in the
warehouse (DuckDB) and in a PostgreSQL publication, where BI tools show them.

Their text is docs/schema.md's: each relation's first paragraph and each column's "meaning"
(markdown removed), kept in ``sql/descriptions.json``. ``python -m pyeval.storage.descriptions
docs/schema.md`` rewrites that file from the page; a test fails when the two differ.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from collections.abc import Iterable

from pyeval.core import sqlfiles
from pyeval.core.db import quote_identifier, string_literal
from pyeval.storage.public import INTERNAL_SCHEMA, INTERNAL_TABLES

#: Never described: its comment is the warehouse's ownership marker (pyeval/storage/ownership.py).
UNDESCRIBED = frozenset(INTERNAL_TABLES)


@functools.cache
def _text() -> str:
    return sqlfiles.read("descriptions.json")


def load() -> dict[str, dict]:
    """``relation -> {"description": text, "columns": {column: text}}``."""
    return json.loads(_text())


def sha256() -> str:
    """sha256 of the descriptions' text: what ``derived_objects`` records for them."""
    return hashlib.sha256(_text().encode("utf-8")).hexdigest()


def statements(*, views: Iterable[str], relations: Iterable[str] | None = None,
               columns: dict[str, Iterable[str]] | None = None) -> list[str]:
    """The ``COMMENT ON`` statements (one syntax for DuckDB and PostgreSQL): ``views`` are
    commented as views, the other relations as tables; only ``relations`` (default: every
    described one) and, when given, only each relation's ``columns``."""
    views = set(views)
    described = load()
    wanted = described.keys() if relations is None else [r for r in relations if r in described]
    found = []
    for relation in wanted:
        if relation in UNDESCRIBED:
            continue
        entry = described[relation]
        kind = "view" if relation in views else "table"
        found.append(f"comment on {kind} {quote_identifier(relation)} is {string_literal(entry['description'])}")
        present = None if columns is None else set(columns.get(relation, ()))
        for column, text in entry["columns"].items():
            if present is None or column in present:
                found.append(f"comment on column {quote_identifier(relation)}.{quote_identifier(column)} is {string_literal(text)}")
    return found


# ------------------------------------------------------------------ from docs/schema.md

_HEADING = re.compile(r"^#{3,4} (.*)$")
_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def plain(markdown: str) -> str:
    """Markdown cell or paragraph text as plain text: links become their text, code marks,
    emphasis and escapes go."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("\\|", "|").replace("**", "").replace("`", "")
    return re.sub(r"\s+", " ", text).strip()


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def from_schema_page(page: str) -> dict[str, dict]:
    """The descriptions docs/schema.md gives: under each ``### `name``` heading, its first
    paragraph and the rows of its first ``| column | ...`` table (a row naming several columns
    describes each, by its "meaning"); the diversity views' summary
    table (``| view | one row per | columns |``) describes each view, its ``col: text`` parts
    its columns. An id column (``*_id``, ``measure``) a relation does not describe takes the
    first description of that name elsewhere on the page, another its documented type, else
    that first description."""
    lines = page.splitlines()
    found: dict[str, dict] = {}
    index = 0
    while index < len(lines):
        heading = _HEADING.match(lines[index])
        index += 1
        if not heading or not re.fullmatch(r"`[A-Za-z_]+`( \(internal\))?", heading.group(1)):
            if heading and "Diversity views" in heading.group(1):
                index = _diversity_views(lines, index, found)
            continue
        name = _NAME.match(heading.group(1)).group(1)
        while index < len(lines) and not lines[index].strip():
            index += 1
        paragraph = []
        while index < len(lines) and lines[index].strip() and not lines[index].startswith("|"):
            paragraph.append(lines[index])
            index += 1
        entry = {"description": plain(" ".join(paragraph)), "columns": {}}
        while index < len(lines) and not lines[index].startswith("#"):
            if lines[index].startswith("| column |"):
                header = _cells(lines[index])
                index += 2
                while index < len(lines) and lines[index].startswith("|"):
                    cells = _cells(lines[index])
                    meaning = cells[header.index("meaning")] if "meaning" in header else ""
                    for column in _NAME.findall(cells[0]):
                        if meaning:
                            entry["columns"][column] = plain(meaning)
                        else:
                            entry.setdefault("types", {})[column] = plain(cells[1])
                    index += 1
                break
            index += 1
        found[name] = entry
    return found


def _diversity_views(lines: list[str], index: int, found: dict) -> int:
    while index < len(lines) and not lines[index].startswith("| view |"):
        index += 1
    index += 2
    while index < len(lines) and lines[index].startswith("|"):
        view, grain, columns = _cells(lines[index])[:3]
        name = _NAME.match(view).group(1)
        entry = {"description": plain(f"One row per {grain}: {columns}"), "columns": {}}
        for part in re.split(r"; (?=`)", columns):
            names, _, text = part.partition(": ")
            for column in _NAME.findall(names):
                entry["columns"][column] = plain(text or names)
        found[name] = entry
        index += 1
    return index


def fill_columns(found: dict[str, dict], columns: dict[str, list[str]]) -> dict[str, dict]:
    """``found`` with every column of ``columns`` (relation -> its columns, in order) described,
    in that order: its own description, else the page's first one for that column name."""
    glossary: dict[str, str] = {}
    for entry in found.values():
        for column, text in entry["columns"].items():
            glossary.setdefault(column, text)

    def text(relation: str, column: str) -> str:
        own, types = found[relation]["columns"], found[relation].get("types", {})
        if own.get(column):
            return own[column]
        if column.endswith("_id") or column == "measure":  # names that mean one thing everywhere
            return glossary.get(column) or types.get(column, "")
        return types.get(column) or glossary.get(column, "")

    described = {
        relation: {"description": found[relation]["description"], "columns": {c: text(relation, c) for c in names}}
        for relation, names in columns.items() if relation in found
    }
    return resolve_cross_references(described)


_CROSS_REFERENCE = re.compile(r"as in ([A-Za-z_][A-Za-z0-9_]*)")


def resolve_cross_references(described: dict[str, dict]) -> dict[str, dict]:
    """Replace a column's description that only points elsewhere ("as in runs", the page's
    shorthand) by the description that relation gives the same column, followed through chains;
    a BI tool shows each column's comment alone, where "as in runs" says nothing."""
    def resolve(relation: str, column: str, seen: frozenset) -> str:
        text = described[relation]["columns"][column]
        pointer = _CROSS_REFERENCE.fullmatch(text)
        if not pointer:
            return text
        target = pointer.group(1)
        if (target, column) in seen or column not in described.get(target, {}).get("columns", {}):
            return text
        return resolve(target, column, seen | {(relation, column)})

    return {
        relation: {"description": entry["description"],
                   "columns": {column: resolve(relation, column, frozenset()) for column in entry["columns"]}}
        for relation, entry in described.items()
    }


def described_columns(con) -> dict[str, list[str]]:
    """``relation -> columns`` of every table and view of the warehouse ``con`` that
    docs/schema.md describes: those of schema ``main`` and ``pyeval_internal`` (the metric
    engine's views) but the bookkeeping tables."""
    columns: dict[str, list[str]] = {}
    for relation, column in con.execute(
        "select table_name, column_name from duckdb_columns() where database_name = current_database() "
        "and schema_name in ('main', $s) and not internal order by table_name, column_index", {"s": INTERNAL_SCHEMA}
    ).fetchall():
        if relation not in UNDESCRIBED:
            columns.setdefault(relation, []).append(column)
    return columns


def main(argv: list[str]) -> int:
    """Rewrite sql/descriptions.json from docs/schema.md (``argv[0]``), for the tables and views
    of a fresh warehouse (:func:`described_columns`) and their columns."""
    import pyeval

    page = open(argv[0], encoding="utf-8").read()
    con = pyeval.connect()
    columns = described_columns(con)
    con.close()
    described = fill_columns(from_schema_page(page), columns)
    target = sqlfiles.resource_root("sql") / "descriptions.json"
    target.write_text(json.dumps(described, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    missing = sorted(set(columns) - set(described))
    print(f"{target}: {len(described)} relations; not on the page: {', '.join(missing) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
