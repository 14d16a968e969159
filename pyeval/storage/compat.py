"""What pyeval does differently on a DuckDB before 2.0 (1.4 and 1.5, the versions Ibis, JupySQL
and the DuckDB CLI on PyPI pin), so that one environment holds pyeval and those tools.

On DuckDB 2.0 nothing here changes what pyeval runs. The syntax trees of the SQL compiler are
pyeval/core/duckdb_trees.py's.
"""
from __future__ import annotations

import re

import duckdb

from pyeval.core.db import string_literal
from pyeval.core.duckdb_trees import BEFORE_2

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


def attached_file(path: str) -> tuple[str, dict[str, str]]:
    """The file operand of an ``attach`` statement and its parameters: ``$path`` bound on DuckDB
    2.0; before 2.0, whose ``attach`` takes no parameter, ``path`` quoted by :func:`string_literal`."""
    if BEFORE_2:
        return string_literal(path), {}
    return "$path", {"path": path}
