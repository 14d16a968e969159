"""The only module that reads .sql files.

SQL lives in three trees at the repository root (shipped inside the wheel as
``pyeval/_resources``): ``migrations/`` (numbered DDL, applied once), ``schema/`` (the current
DDL, one file per table, for reading and for a consistency test) and ``sql/`` (views and
queries). Values are never spliced into SQL text: queries take ``$name`` parameters.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent

#: Views in creation order (a view may read only views above it). A test checks that this list
#: and the files in sql/views/ agree.
VIEW_ORDER: tuple[str, ...] = (
    "current_inputs",
    "stale_results",
    "score_history",
    "scores",
    "run_means",
    "monthly_means",
    "leaderboard",
    "campaign_overview",
    "run_overview",
    "topic_overview",
    "ranked_entries",
    "topic_levels",
    "intent_levels",
    "profile_gains",
    "intent_gain_values",
    "gain_values",
    "gain_maxima",
    "rank_gains",
    "ideal_gains",
    "intent_weights",
    "intent_gains",
    "intent_ideal_gains",
    "global_gains",
    "global_ideal_gains",
    "din_rank_gains",
)


def resource_root(tree: str) -> Path:
    """Directory of ``tree`` ('sql', 'schema' or 'migrations') in a wheel or a checkout."""
    for candidate in (_PACKAGE_DIR / "_resources" / tree, _PACKAGE_DIR.parent / tree):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pyeval installation is missing its {tree}/ directory")


@functools.cache
def read(relative_path: str) -> str:
    """Text of ``sql/<relative_path>``, e.g. ``read('views/scores.sql')``."""
    return (resource_root("sql") / relative_path).read_text(encoding="utf-8")


_COMMENT = re.compile(r"--[^\n]*")
_WORD = re.compile(r"\w+")


@functools.cache
def _words(relative_path: str) -> frozenset[str]:
    return frozenset(_WORD.findall(_COMMENT.sub("", read(relative_path))))


def relations(relative_path: str, names) -> set[str]:
    """Which of ``names`` the SQL of ``sql/<relative_path>`` mentions, outside comments: the
    staged tables a query reads (pyeval.evaluation.run_stages builds only those)."""
    return set(names) & _words(relative_path)


def view_sql(name: str) -> str:
    """The ``select`` that defines view ``name``."""
    return read(f"views/{name}.sql")


_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


def migration_files() -> list[tuple[int, str, Path]]:
    """``(version, name, path)`` of every file in migrations/, in version order."""
    found = []
    for path in sorted(resource_root("migrations").glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if match is None:
            raise ValueError(f"migration file with a malformed name: {path.name}")
        found.append((int(match.group(1)), match.group(2), path))
    return found


def schema_files() -> list[Path]:
    """The files of schema/, one per stored table."""
    return sorted(resource_root("schema").glob("*.sql"))


def table_sql(name: str) -> str:
    """The ``create table`` of stored table ``name`` (``schema/<name>.sql``)."""
    path = resource_root("schema") / f"{name}.sql"
    if not path.is_file():
        raise ValueError(f"no stored table or view named {name!r} (schema/, sql/views/)")
    return path.read_text(encoding="utf-8")


def with_dependencies(relations: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(tables, views)``: the stored tables and the views of ``relations`` and every table and
    view those views read (found by name in each view's SQL, outside comments), tables in the
    order given, views in :data:`VIEW_ORDER`. What an in-memory warehouse that reads only
    ``relations`` must hold (pyeval.warehouse.scratch)."""
    relations = tuple(relations)
    tables = [name for name in dict.fromkeys(relations) if name not in VIEW_ORDER]
    views = {name for name in relations if name in VIEW_ORDER}
    for view in reversed(VIEW_ORDER):  # a view reads only views above it
        if view in views:
            read = relations_of_view(view)
            views |= {name for name in read if name in VIEW_ORDER}
            tables += [name for name in sorted(read) if name not in VIEW_ORDER and name not in tables]
    return tables, [view for view in VIEW_ORDER if view in views]


def relations_of_view(name: str) -> set[str]:
    """The stored tables and views that view ``name`` mentions (a word-level over-approximation:
    a column named like a table counts too)."""
    return _words(f"views/{name}.sql") & (set(VIEW_ORDER) | _table_names())


@functools.cache
def _table_names() -> frozenset[str]:
    return frozenset(path.stem for path in schema_files())
