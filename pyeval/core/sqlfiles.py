"""The only module that reads .sql files, and the graph their headers declare.

SQL lives in three trees at the repository root (shipped inside the wheel as
``pyeval/_resources``): ``migrations/`` (numbered DDL, applied once), ``schema/`` (the current
DDL, one file per table, for reading and for a consistency test) and ``sql/`` (views and
queries). Values are never spliced into SQL text: queries take ``$name`` parameters.

Every file of sql/ is a declared model, as in dbt: it opens with a header saying what it reads,
what it produces and its parameters (docs/architecture.md, "SQL models")::

    -- reads: rank_gains
    -- produces: evaluation_ranks (run_id, topic_id, rank, doc_id, level)
    -- grain: run_id, topic_id, rank
    -- params: $campaign_id, $ordering, $runs, $max_depth, $judged_only

(``writes: TABLE`` for an insert or update, ``defines: MACRO, ...`` for a file of macros; a
value runs on over lines that start with ``--`` and three spaces or more). The view order, the
stages an evaluation builds and the parameters each statement is given are derived from these
headers; tests/sql/test_sql_models.py checks each header against its SQL.
"""
from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # pyeval/ (this file is in pyeval/core/)

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


def insert_select(relative_path: str) -> str:
    """The select of ``sql/<relative_path>``, a file ``insert into <table> (<columns>) [with ...] select
    ...`` whose select names its columns as the table does: the rows it would insert, as a
    relation."""
    body = "\n".join(line for line in read(relative_path).splitlines() if not line.lstrip().startswith("--"))
    match = re.match(r"\s*insert\s+into\s+\w+\s*\([^)]*\)\s*((?:with|select)\b.*)$", body, re.S | re.I)
    if match is None:
        raise ValueError(f"sql/{relative_path} is not one insert ... select")
    return match.group(1)


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


def migration_checksum(path: Path) -> str:
    """sha256 of a migration's text, line endings normalised (a CRLF checkout stays valid)."""
    text = path.read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(text).hexdigest()


def schema_files() -> list[Path]:
    """The files of schema/, one per stored table."""
    return sorted(resource_root("schema").glob("*.sql"))


def table_sql(name: str) -> str:
    """The ``create table`` of stored table ``name`` (``schema/<name>.sql``)."""
    path = resource_root("schema") / f"{name}.sql"
    if not path.is_file():
        raise ValueError(f"no stored table or view named {name!r} (schema/, sql/views/)")
    return path.read_text(encoding="utf-8")


_HEADER_KEYS = ("reads", "produces", "writes", "defines", "grain", "params")
_KEY_LINE = re.compile(r"^-- (" + "|".join(_HEADER_KEYS) + r"): (.*)$")
_CONTINUATION = re.compile(r"^--   +(\S.*)$")
_PRODUCES = re.compile(r"^(\w+) \((.*)\)$")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclass(frozen=True)
class Model:
    """The declared header of one file of sql/ (see the module docstring)."""

    path: str  # relative to sql/, e.g. 'views/scores.sql'
    reads: tuple[str, ...]
    produces: str | None  # the relation a select makes (a view, a staged table, a query's rows)
    columns: tuple[str, ...]  # its columns, in order ('<...>' marks columns named at run time)
    grain: str  # what one row stands for: its key columns, or a phrase
    writes: str | None  # the table an insert or update writes
    defines: tuple[str, ...]  # the macros a file of macros creates
    params: tuple[str, ...]  # the $parameters it takes, without '$'

    @property
    def key(self) -> tuple[str, ...] | None:
        """The grain as columns, or None when the grain is a phrase."""
        names = tuple(name.strip() for name in self.grain.split(","))
        return names if self.grain and all(_NAME.match(name) for name in names) else None

    def bind(self, settings: Mapping[str, object]) -> dict[str, object]:
        """The parameters of ``settings`` this statement declares (DuckDB refuses others)."""
        missing = [name for name in self.params if name not in settings]
        if missing:
            raise KeyError(f"sql/{self.path} needs ${missing[0]}")
        return {name: settings[name] for name in self.params}


def _names(value: str) -> tuple[str, ...]:
    if value.strip() == "none":
        return ()
    return tuple(name.strip().lstrip("$") for name in value.split(","))


@functools.cache
def model(relative_path: str) -> Model:
    """The declared header of ``sql/<relative_path>``; ValueError when it is missing or malformed."""
    fields: dict[str, str] = {}
    key = None
    for line in read(relative_path).splitlines():
        match = _KEY_LINE.match(line)
        if match:
            key = match.group(1)
            if key in fields:
                raise ValueError(f"sql/{relative_path}: header declares {key!r} twice")
            fields[key] = match.group(2)
        elif key is not None and _CONTINUATION.match(line):
            fields[key] += " " + _CONTINUATION.match(line).group(1)
        else:
            break
    if "params" not in fields or not {"produces", "writes", "defines"} & fields.keys():
        raise ValueError(f"sql/{relative_path}: the header must declare params and one of produces, "
                         "writes, defines")
    produces, columns = None, ()
    if "produces" in fields:
        match = _PRODUCES.match(fields["produces"])
        if match is None:
            raise ValueError(f"sql/{relative_path}: 'produces' must read 'NAME (column, ...)'")
        produces, columns = match.group(1), tuple(c.strip() for c in match.group(2).split(","))
    return Model(
        path=relative_path,
        reads=_names(fields.get("reads", "none")),
        produces=produces,
        columns=columns,
        grain=fields.get("grain", ""),
        writes=fields.get("writes"),
        defines=_names(fields.get("defines", "none")),
        params=_names(fields["params"]),
    )


def model_files() -> list[str]:
    """Every file of sql/, relative to it, in path order."""
    root = resource_root("sql")
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*.sql"))


def creation_order(models: Iterable[Model]) -> list[Model]:
    """``models`` so that each comes after the models it reads (ties in path order)."""
    pending = {m.produces: m for m in sorted(models, key=lambda m: m.path)}
    ordered: list[Model] = []
    while pending:
        ready = [m for m in pending.values() if not set(m.reads) & (pending.keys() - {m.produces})]
        if not ready:
            raise ValueError(f"the headers of {', '.join(sorted(pending))} read each other in a cycle")
        for m in ready:
            ordered.append(m)
            del pending[m.produces]
    return ordered


@functools.cache
def _view_order() -> tuple[str, ...]:
    root = resource_root("sql") / "views"
    views = [model(f"views/{path.stem}.sql") for path in root.glob("*.sql")]
    return tuple(m.produces for m in creation_order(views))


def __getattr__(name: str):
    if name == "VIEW_ORDER":  # computed on first use: importing pyeval reads no SQL
        return _view_order()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def with_dependencies(relations: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(tables, views)``: the stored tables and the views of ``relations`` and every table and
    view those views read (their headers' ``reads``), tables in the order given, views in
    creation order. What an in-memory warehouse that reads only ``relations`` must hold
    (pyeval.storage.warehouse.scratch)."""
    order = _view_order()
    relations = tuple(relations)
    tables = [name for name in dict.fromkeys(relations) if name not in order]
    views = {name for name in relations if name in order}
    for view in reversed(order):  # a view reads only views before it
        if view in views:
            read = model(f"views/{view}.sql").reads
            views |= {name for name in read if name in order}
            tables += [name for name in sorted(read) if name not in order and name not in tables]
    return tables, [view for view in order if view in views]


_TREES = {
    "views": "Views (created in every warehouse; docs/schema.md)",
    "evaluation": "Evaluation stages and aggregates (pyeval/core/stages.py, pyeval/core/evaluation.py, pyeval/diversity)",
    "metrics": "Metric families (one per file; pyeval/core/stages.py runs them)",
    "drivers": "Python family drivers' reads (pyeval/drivers/)",
    "diversity": "Diversity campaign tools (pyeval/diversity/campaigns.py)",
    "resampling": "Resampling reads (pyeval/resampling/)",
    "compat": "Drop-in output (pyeval/compat/)",
    "loaders": "Loaders (pyeval/loaders/)",
    "fusion": "Run fusion (pyeval/fusion/)",
    "archive": "Stored current values (pyeval/core/archive.py)",
    "judgments": "Judgment sets: derivations, holes, label agreement (pyeval/judgments/)",
    "pools": "Pools (pyeval/pools/)",
    "reports": "Per-run reports (pyeval/reports/)",
    "repro": "Reproducibility (pyeval/repro/)",
}


def models_page(staging: Iterable[str]) -> str:
    """The text of docs/sql-models.md: the graph of the views and of ``staging`` (the ad hoc
    staging's files of sql/evaluation/) and every file's declared header, from the headers
    themselves (``python -m pyeval.core.plan`` prints it, with the plan's ad hoc staging)."""
    models = [model(path) for path in model_files()]
    lines = [
        "# SQL models",
        "",
        "Generated from the headers of `sql/` by `python -m pyeval.core.plan > docs/sql-models.md`;",
        "tests/test_architecture.py fails when it is out of date. Each file declares what it reads,",
        "what it produces (a relation and its columns) or writes, its grain (what one row stands",
        "for) and its `$parameters`; tests/sql/test_sql_models.py checks the declarations against",
        "the SQL. The flow they belong to is [architecture.md](architecture.md).",
        "",
        "## The graph of views and ad hoc stages",
        "",
        "An arrow points from a relation to the relations made from it. Stored tables are",
        "rectangles, views rounded, evaluation stages hexagons.",
        "",
        "```mermaid",
        "flowchart LR",
    ]
    shown = [m for m in models if m.path.startswith("views/")]
    shown += [model(f"evaluation/{file}.sql") for file in staging]
    made = {m.produces for m in shown}
    tables = sorted({name for m in shown for name in m.reads} - made)
    lines += [f"    {name}[{name}]" for name in tables]
    for m in shown:
        shape = "({})" if m.path.startswith("views/") else "{{{{{}}}}}"
        lines.append(f"    {m.produces}" + shape.format(m.produces))
    lines += [f"    {name} --> {m.produces}" for m in shown for name in m.reads]
    lines += ["```", ""]
    for tree, title in _TREES.items():
        lines += [f"## {title}", "", "| file | produces / writes | grain | reads | parameters |",
                  "|---|---|---|---|---|"]
        for m in models:
            if m.path.split("/")[0] != tree:
                continue
            if m.produces is not None:
                made_text = f"`{m.produces}` ({', '.join(m.columns)})"
            elif m.writes is not None:
                made_text = f"writes `{m.writes}`"
            else:
                made_text = "macros " + ", ".join(f"`{name}`" for name in m.defines)
            cells = [f"`sql/{m.path}`", made_text, m.grain or "",
                     ", ".join(f"`{name}`" for name in m.reads) or "none",
                     ", ".join(f"`${name}`" for name in m.params) or "none"]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        lines.append("")
    return "\n".join(lines)
