"""Publishing a warehouse's public schema to PostgreSQL, incrementally (docs/bi.md)."""
from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
from ..errors import NotOwnedError, PyevalError, with_command_line
from pyeval.storage.public import PUBLIC_TABLES, PUBLIC_VIEWS

from .common import database_path, quote_identifier, table_columns

#: Tables whose rows belong to one evaluation and never change: published incrementally.
EVALUATION_TABLES: tuple[str, ...] = (
    "evaluations",
    "topic_scores",
    "evaluation_inputs",
    "evaluation_measures",
    "evaluation_means",
)

#: Large input tables published per campaign input (kind in campaign_inputs) when it changed.
CAMPAIGN_INPUT_TABLES: dict[str, str] = {
    "qrels_by_set": "qrels",
    "intents_by_set": "intents",
    "document_lengths": "doclengths",
}

#: Tables of publications made before migration 0019 whose names are views now (each campaign's
#: default judgment set): a publication drops them (pyeval's own) before it creates the views.
FORMER_TABLES: tuple[str, ...] = ("qrels", "intents")

#: Public views whose SQL is DuckDB's own: current_inputs reaches PostgreSQL as rows
#: (:data:`MATERIALIZED_VIEWS`), derived_run_status not at all.
DUCKDB_ONLY_VIEWS: tuple[str, ...] = ("derived_run_status", "current_inputs")
#: Views whose SQL is portable: PostgreSQL gets them as views, created from sql/views/ text (the
#: public views of pyeval.sharing.common, in their order, but the DuckDB-only ones).
PORTABLE_VIEWS: tuple[str, ...] = tuple(view for view in PUBLIC_VIEWS if view not in DUCKDB_ONLY_VIEWS)

#: DuckDB-only views the portable ones read: PostgreSQL gets their rows as a table.
MATERIALIZED_VIEWS: tuple[str, ...] = ("current_inputs",)
PUBLICATIONS_TABLE = "pyeval_publications"
#: The columns of :data:`PUBLICATIONS_TABLE` a ``--grant-select`` role may read: all but
#: ``source``, the publishing host's path of the warehouse file.
PUBLICATION_COLUMNS_GRANTED: tuple[str, ...] = (
    "publication_id", "published_at", "pyeval_version", "last_evaluation_id", "rows_copied")
#: The sha256 of each published view's SQL: a view is replaced only when its definition changed,
#: so that what was granted on it stays.
PUBLISHED_VIEWS_TABLE = "pyeval_published_views"
#: The roles granted SELECT (``--grant-select``): every publication grants to them again what
#: it (re)created.
GRANTS_TABLE = "pyeval_grants"
#: pyeval's bookkeeping tables, kept in a schema of their own (:func:`bookkeeping_schema`).
BOOKKEEPING_TABLES: tuple[str, ...] = (PUBLICATIONS_TABLE, PUBLISHED_VIEWS_TABLE, GRANTS_TABLE)
#: PostgreSQL's longest identifier, in bytes (NAMEDATALEN - 1): longer names are truncated.
_PG_IDENTIFIER_BYTES = 63


def bookkeeping_schema(published_schema: str) -> str:
    """The schema of the bookkeeping tables of a publication into ``published_schema``:
    ``pyeval_<published_schema>``, one per published schema (docs/bi.md). A name longer than
    PostgreSQL's 63 bytes ends in the sha256 of the published schema's name instead, so that two
    long names never share one."""
    name = f"pyeval_{published_schema}"
    if len(name.encode("utf-8")) <= _PG_IDENTIFIER_BYTES:
        return name
    digest = hashlib.sha256(published_schema.encode("utf-8")).hexdigest()[:16]
    head = name.encode("utf-8")[:_PG_IDENTIFIER_BYTES - len(digest) - 1].decode("utf-8", "ignore")
    return f"{head}_{digest}"


@dataclass
class PublishReport:
    """What :func:`publish` copied: rows per table, and the evaluations now published."""

    url: str
    rows: dict[str, int] = field(default_factory=dict)
    full: bool = False
    last_evaluation_id: int | None = None
    new_evaluations: int = 0
    #: The schema published to (PostgreSQL's current schema) and the one of pyeval's bookkeeping.
    schema: str | None = None
    bookkeeping_schema: str | None = None

    def summary(self) -> str:
        copied = sum(self.rows.values())
        how = "full copy" if self.full else "incremental"
        return (f"published to {self.url} ({how}): {copied} rows copied, "
                f"{self.new_evaluations} new evaluations, last evaluation {self.last_evaluation_id}")


def _pg_engine(url: str):
    try:
        import sqlalchemy as sa
        from sqlalchemy.engine import make_url
    except ImportError as exc:  # pragma: no cover - a dependency
        raise PyevalError(f"publishing needs SQLAlchemy: {exc}") from exc
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError
        raise PyevalError(f"not a database URL: {url!r}") from exc
    if parsed.drivername.split("+")[0] == "postgres":  # libpq's and Heroku's spelling of postgresql://
        parsed = parsed.set(drivername="postgresql")
    if parsed.get_backend_name() != "postgresql":
        raise PyevalError(f"publish needs a postgresql:// URL; got {parsed.get_backend_name()}://")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PyevalError("publishing needs the PostgreSQL driver psycopg: pip install 'pyeval[postgres]'") from exc
    parsed = parsed.set(drivername="postgresql+psycopg")
    engine = sa.create_engine(parsed, connect_args={"connect_timeout": 10})
    return engine, parsed.render_as_string(hide_password=True)


def _pg_type(duckdb_type: str):
    import sqlalchemy as sa
    from sqlalchemy.dialects import postgresql

    types = {
        "VARCHAR": sa.Text, "BIGINT": sa.BigInteger, "INTEGER": sa.Integer,
        "DOUBLE": postgresql.DOUBLE_PRECISION, "BOOLEAN": sa.Boolean,
        "TIMESTAMP": sa.DateTime, "DATE": sa.Date,
    }
    if duckdb_type.endswith("[]"):  # DuckDB lists become PostgreSQL arrays
        return postgresql.ARRAY(_pg_type(duckdb_type[:-2]))
    if duckdb_type not in types:
        raise PyevalError(f"cannot publish a column of DuckDB type {duckdb_type}")
    return types[duckdb_type]()


def _primary_key(con, table: str) -> list[str]:
    row = first_row(
        con,
        "select constraint_column_names from duckdb_constraints() where table_name = $t "
        "and constraint_type = 'PRIMARY KEY' and database_name = current_database()",
        {"t": table},
    )
    return list(row[0]) if row else []


def _pg_table(metadata, con, name: str, columns: list[tuple[str, str]]):
    import sqlalchemy as sa

    key = set(_primary_key(con, name)) if name in PUBLIC_TABLES else set()
    table = sa.Table(
        name, metadata,
        *[sa.Column(column, _pg_type(kind), primary_key=column in key) for column, kind in columns],
    )
    if name in _PG_INDEXES:
        sa.Index(f"{name}_publish_key", *[table.c[c] for c in _PG_INDEXES[name]])
    return table


#: Indexes for the deletes and counts of an incremental publication (tables without a key).
_PG_INDEXES: dict[str, tuple[str, ...]] = {
    "topic_scores": ("evaluation_id",),
    "run_entries": ("campaign_id", "run_id"),
    "qrels_by_set": ("campaign_id",),
    "document_lengths": ("campaign_id",),
}


def _copy_rows(con, pg, table: str, columns: list[str], query: str, parameters: dict) -> int:
    """Stream ``query``'s rows (DuckDB, in ``con``'s transaction) into ``table`` (PostgreSQL)
    with COPY, through a CSV file (NULL unquoted and empty, '' quoted: both servers agree);
    rows with list columns go through parameterised inserts instead."""
    from psycopg import sql

    con.execute(f"select * from ({query}) limit 0", parameters)
    if any(str(column[1]).endswith("[]") for column in con.description):
        # list columns: psycopg sends Python lists as PostgreSQL arrays (CSV has no array form)
        rows = con.execute(query, parameters).fetchall()
        statement = sql.SQL("insert into {} ({}) values ({})").format(
            sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns),
            sql.SQL(", ").join(sql.Placeholder() * len(columns)),
        )
        with pg.connection.driver_connection.cursor() as pg_cursor:
            pg_cursor.executemany(statement, rows)
        return len(rows)
    with tempfile.TemporaryDirectory(prefix="pyeval-publish-") as folder:
        path = Path(folder) / "rows.csv"
        con.execute(f"copy ({query}) to $path (format csv, header false)", {**parameters, "path": str(path)})
        statement = sql.SQL("copy {} ({}) from stdin (format csv)").format(
            sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns)
        )
        raw = pg.connection.driver_connection
        with raw.cursor() as pg_cursor:
            with pg_cursor.copy(statement) as copy, open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    copy.write(chunk)
            return pg_cursor.rowcount


def publish(
    con: duckdb.DuckDBPyConnection, url: str, *, full: bool = False, grant_select: tuple[str, ...] = ()
) -> PublishReport:
    """Copy the public schema into a PostgreSQL database (one transaction there).

    Tables get the warehouse's columns and primary keys. Evaluation tables are copied
    incrementally (rows of evaluations after the last one published), ``qrels``, ``intents``,
    ``document_lengths`` and ``run_entries`` per campaign input or run whose sha256 or load time
    changed, the small tables whole. The portable views are created from the same SQL text as in
    DuckDB, and replaced only when that text changed (so grants on them stay);
    ``current_inputs`` (DuckDB-only SQL) is copied as a table. The metric engine's views are not
    published. Every table and view gets its description as its comment. ``full`` copies
    everything again. ``grant_select``: roles granted SELECT on every published table and view
    (and USAGE on the schema and its bookkeeping schema), now and at every later publication.
    pyeval's bookkeeping tables are in the schema :func:`bookkeeping_schema` names; those an
    earlier publication left beside the published tables are moved there.

    Raises
    ------
    PyevalError
        A URL that is not ``postgresql://``, no driver, or a server that cannot be reached.
    """
    import sqlalchemy as sa

    from .. import __version__

    engine, shown = _pg_engine(url)
    import psycopg  # present: _pg_engine checked
    report = PublishReport(shown, full=full)
    cursor = con.cursor()
    try:
        cursor.begin()
        try:
            with engine.begin() as pg:
                _publish(cursor, pg, report, tuple(grant_select))
                pg.execute(
                    sa.text(f"insert into {_qualified(report.bookkeeping_schema, PUBLICATIONS_TABLE)} "
                            "(published_at, pyeval_version, source, last_evaluation_id, rows_copied) "
                            "values (now(), :v, :s, :e, :n)"),
                    {"v": __version__, "s": database_path(con), "e": report.last_evaluation_id,
                     "n": sum(report.rows.values())},
                )
        finally:
            cursor.rollback()
    except sa.exc.OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc).splitlines()[0]
        raise PyevalError(f"cannot publish to {shown}: {reason}") from exc
    except sa.exc.DBAPIError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc).splitlines()[0]
        raise PyevalError(f"publishing to {shown} failed: {reason}") from exc
    except psycopg.Error as exc:  # statements run on the driver's connection (COPY, DDL)
        raise PyevalError(f"publishing to {shown} failed: {str(exc).strip().splitlines()[0]}") from exc
    finally:
        cursor.close()
        engine.dispose()
    return report


def _qualified(schema: str, relation: str) -> str:
    return f"{quote_identifier(schema)}.{quote_identifier(relation)}"


def _view_sha256(view: str) -> str:
    return hashlib.sha256(sqlfiles.view_sql(view).encode("utf-8")).hexdigest()


def _pg_views(pg) -> set[str]:
    """The views of PostgreSQL's current schema now (after drops that cascaded)."""
    return {name for name, in pg.exec_driver_sql(
        "select viewname from pg_views where schemaname = current_schema()").fetchall()}


def _publish(con, pg, report: PublishReport, grant_select: tuple[str, ...] = ()) -> None:
    import sqlalchemy as sa

    # one publication at a time per database: concurrent first publications would race to create
    # the same tables (the second waits, then finds them and publishes incrementally)
    pg.exec_driver_sql("select pg_advisory_xact_lock(hashtext('pyeval publish'))")
    schema = pg.exec_driver_sql("select current_schema()").scalar_one()
    if schema is None:
        raise PyevalError(f"{report.url}: no schema to publish to (no schema of the search_path exists)")
    report.schema, book = schema, bookkeeping_schema(schema)
    report.bookkeeping_schema = book
    inspector = sa.inspect(pg)
    existing = set(inspector.get_table_names())
    book_exists = bool(pg.execute(sa.text("select count(*) from pg_namespace where nspname = :s"),
                                  {"s": book}).scalar_one())
    kept = _relations(pg, book) if book_exists else set()
    _require_publication_target(existing | set(inspector.get_view_names()), kept, schema, book, report.url)
    kept |= _move_bookkeeping(pg, existing, kept, schema, book, book_exists, report.url)
    existing -= set(BOOKKEEPING_TABLES)
    recorded = dict(pg.exec_driver_sql(
        f"select view_name, sha256 from {_qualified(book, PUBLISHED_VIEWS_TABLE)}").fetchall()) \
        if PUBLISHED_VIEWS_TABLE in kept else {}
    present = _pg_views(pg)
    for view in reversed(PORTABLE_VIEWS):  # only views whose SQL changed (and what reads them)
        if view in present and recorded.get(view) != _view_sha256(view):
            _drop_own(pg, view, "view", report.url)
    metadata = sa.MetaData()
    bookkeeping = sa.MetaData(schema=book)
    sa.Table(
        PUBLICATIONS_TABLE, bookkeeping,
        sa.Column("publication_id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pyeval_version", sa.Text, nullable=False),
        sa.Column("source", sa.Text),
        sa.Column("last_evaluation_id", sa.BigInteger),
        sa.Column("rows_copied", sa.BigInteger, nullable=False),
    )
    for name in FORMER_TABLES:
        if name in existing:
            _drop_own(pg, name, "table", report.url)
            existing.discard(name)
    columns = {name: table_columns(con, name) for name in (*PUBLIC_TABLES, *MATERIALIZED_VIEWS)}
    fresh = set()  # tables (re)created now: they need every row
    for name, cols in columns.items():
        table = _pg_table(metadata, con, name, cols)
        if name in existing:
            published = [c["name"] for c in inspector.get_columns(name)]
            if published == [c for c, _ in cols]:
                continue
            _drop_own(pg, name, "table", report.url)
        table.create(pg)
        fresh.add(name)
    sa.Table(PUBLISHED_VIEWS_TABLE, bookkeeping, sa.Column("view_name", sa.Text, primary_key=True),
             sa.Column("sha256", sa.Text, nullable=False))
    sa.Table(GRANTS_TABLE, bookkeeping, sa.Column("role_name", sa.Text, primary_key=True))
    bookkeeping.create_all(pg, checkfirst=True)

    last = first_row(con, "select max(evaluation_id) from evaluations")[0]
    watermark = None if report.full or fresh & set(EVALUATION_TABLES) else _watermark(con, pg)
    report.full = watermark is None
    for name in EVALUATION_TABLES:
        cols = [c for c, _ in columns[name]]
        if watermark is None:
            pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
            query, parameters = f"select * from {name}", {}
        else:
            query, parameters = f"select * from {name} where evaluation_id > $after", {"after": watermark}
        report.rows[name] = _copy_rows(con, pg, name, cols, query, parameters)
    report.new_evaluations = report.rows["evaluations"]
    report.last_evaluation_id = last

    # run entries: per run whose file or load time changed (compared before runs is refreshed)
    changed_runs = _changed_keys(
        con, pg, "select campaign_id, run_id, source_sha256, loaded_at from runs",
        "runs", ("campaign_id", "run_id", "source_sha256", "loaded_at"),
    )
    changed_inputs = _changed_keys(
        con, pg, "select campaign_id, input_kind, source_sha256, loaded_at from campaign_inputs",
        "campaign_inputs", ("campaign_id", "input_kind", "source_sha256", "loaded_at"),
    )
    parts = {"run_entries": (("campaign_id", "run_id"), changed_runs)}
    for name, kind in CAMPAIGN_INPUT_TABLES.items():
        parts[name] = (("campaign_id",), {(c,) for c, k in changed_inputs if k == kind})
    for name, (key, changed) in parts.items():
        if report.full or name in fresh:
            changed = None  # every row
        report.rows[name] = _replace_parts(con, pg, name, columns, key, changed)
    for name in (*PUBLIC_TABLES, *MATERIALIZED_VIEWS):
        if name in EVALUATION_TABLES or name in parts:
            continue
        pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
        report.rows[name] = _copy_rows(con, pg, name, [c for c, _ in columns[name]], f"select * from {name}", {})
    raw = pg.connection.driver_connection
    present = _pg_views(pg)
    for view in PORTABLE_VIEWS:
        if view not in present:
            # the view's own SQL text, run by PostgreSQL: no parameters, no placeholders
            raw.execute(f"create view {quote_identifier(view)} as\n{sqlfiles.view_sql(view)}")
    pg.exec_driver_sql(f"delete from {_qualified(book, PUBLISHED_VIEWS_TABLE)}")
    pg.execute(sa.text(f"insert into {_qualified(book, PUBLISHED_VIEWS_TABLE)} (view_name, sha256) values (:v, :s)"),
               [{"v": view, "s": _view_sha256(view)} for view in PORTABLE_VIEWS])
    _describe(pg, columns)
    _grant(pg, grant_select, schema, book)


def _relations(pg, schema: str) -> set[str]:
    """The tables, views and other relations of ``schema``."""
    import sqlalchemy as sa

    return {name for name, in pg.execute(sa.text(
        "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace "
        "where n.nspname = :s and c.relkind in ('r', 'v', 'm', 'p', 'f')"), {"s": schema}).fetchall()}


def _move_bookkeeping(pg, existing: set[str], kept: set[str], schema: str, book: str, book_exists: bool,
                      shown_url: str) -> set[str]:
    """Create the bookkeeping schema ``book`` if need be, and move into it the bookkeeping tables a
    publication before it left beside the published tables in ``schema`` (ALTER TABLE ... SET
    SCHEMA: rows, identity sequence and grants move with them), in the publication's transaction.
    Returns the tables moved."""
    from psycopg import errors, sql

    legacy = existing & set(BOOKKEEPING_TABLES)
    if legacy and not existing & set(PUBLIC_TABLES):  # a bookkeeping schema, not a publication
        raise NotOwnedError(f"{shown_url}: schema {schema} holds pyeval's bookkeeping ({', '.join(sorted(legacy))}) "
                            "but no published table; publish to another schema")
    raw = pg.connection.driver_connection
    if not book_exists:  # CREATE SCHEMA needs CREATE on the database, even with IF NOT EXISTS
        try:
            raw.execute(sql.SQL("create schema {}").format(sql.Identifier(book)))
        except errors.InsufficientPrivilege as exc:
            raise PyevalError(
                f"{shown_url}: cannot create schema {book} for pyeval's bookkeeping ({exc}); grant the publishing "
                f"role CREATE on the database, or create the schema for it: create schema {quote_identifier(book)} "
                "authorization <publishing role>") from exc
    for name in BOOKKEEPING_TABLES:
        if name not in existing:
            continue
        if name in kept:
            raise PyevalError(f"{shown_url}: pyeval's bookkeeping table {name} is both in schema {schema} "
                              f"and in {book}; drop the one that is not wanted")
        raw.execute(sql.SQL("alter table {} set schema {}").format(
            sql.Identifier(schema, name), sql.Identifier(book)))
    return legacy


def _describe(pg, columns: dict) -> None:
    """COMMENT ON every published table, view and column (pyeval/storage/descriptions.py)."""
    import sqlalchemy as sa

    from pyeval.storage import descriptions

    inspector = sa.inspect(pg)
    published = {name: [c for c, _ in cols] for name, cols in columns.items()}
    published.update({view: [c["name"] for c in inspector.get_columns(view)] for view in PORTABLE_VIEWS})
    raw = pg.connection.driver_connection
    for statement in descriptions.statements(views=PORTABLE_VIEWS, relations=published,
                                             columns=published):
        raw.execute(statement)  # pyeval's own text (sql/descriptions.json), quoted as literals


def _grant(pg, roles: tuple[str, ...], schema: str, book: str) -> None:
    """Record ``roles`` (exactly as given) and grant every recorded role SELECT on every published
    relation and USAGE on ``schema`` and on the bookkeeping schema ``book``, role names quoted as
    identifiers. A role given now that
    PostgreSQL does not know is an error (nothing is published); a recorded role dropped since is
    skipped with a warning (and granted again should it come back)."""
    import warnings

    import sqlalchemy as sa
    from psycopg import sql

    from ..errors import PyevalWarning

    def exists(role: str) -> bool:
        return bool(pg.execute(sa.text("select count(*) from pg_roles where rolname = :r"), {"r": role}).scalar_one())

    for role in roles:
        if not exists(role):
            raise with_command_line(PyevalError(f"grant_select: PostgreSQL has no role {role!r}; create it first"),
                                    f"--grant-select: PostgreSQL has no role {role!r}; create it first")
        pg.execute(sa.text(f"insert into {_qualified(book, GRANTS_TABLE)} (role_name) values (:r) "
                           "on conflict do nothing"), {"r": role})
    relations = sql.SQL(", ").join(
        sql.Identifier(name) for name in (*PUBLIC_TABLES, *MATERIALIZED_VIEWS, *PORTABLE_VIEWS))
    # pyeval_publications without `source`, the publishing host's file path: the columns only
    # (a grant of the whole table by an earlier pyeval is revoked first)
    shown = sql.SQL(", ").join(sql.Identifier(c) for c in PUBLICATION_COLUMNS_GRANTED)
    publications = sql.Identifier(book, PUBLICATIONS_TABLE)
    raw = pg.connection.driver_connection
    for role, in pg.exec_driver_sql(f"select role_name from {_qualified(book, GRANTS_TABLE)} "
                                    "order by role_name").fetchall():
        if not exists(role):
            warnings.warn(f"--grant-select: the recorded role {role!r} no longer exists in PostgreSQL; "
                          f"skipped (delete it from {book}.{GRANTS_TABLE} to stop this warning)",
                          PyevalWarning, stacklevel=2)
            continue
        # psycopg composes the identifiers (no format string sees the role's name)
        raw.execute(sql.SQL("grant usage on schema {}, {} to {}").format(
            sql.Identifier(schema), sql.Identifier(book), sql.Identifier(role)))
        raw.execute(sql.SQL("grant select on {} to {}").format(relations, sql.Identifier(role)))
        raw.execute(sql.SQL("revoke select on {} from {}").format(publications, sql.Identifier(role)))
        raw.execute(sql.SQL("grant select ({}) on {} to {}").format(shown, publications, sql.Identifier(role)))


def _dependants(pg, relation: str) -> list[tuple[str | None, str]]:
    """What PostgreSQL would drop with ``relation`` (of the current schema) under CASCADE beyond
    the relation itself: ``(name of a view of the current schema or None, description)`` of each
    object with a normal dependency on it (views reading it, other tables' foreign keys, ...)."""
    import sqlalchemy as sa

    rows = pg.execute(sa.text(
        "select case when n.nspname = current_schema() then v.relname end, "
        "case when v.oid is not null then 'view ' || v.oid::regclass::text "
        "else pg_describe_object(d.classid, d.objid, d.objsubid) end "
        "from pg_depend d left join pg_rewrite r on d.classid = 'pg_rewrite'::regclass and r.oid = d.objid "
        "left join pg_class v on v.oid = r.ev_class left join pg_namespace n on n.oid = v.relnamespace "
        "where d.refclassid = 'pg_class'::regclass and d.refobjid = to_regclass(:relation) "
        "and d.deptype = 'n' and (v.oid is null or v.oid <> d.refobjid)"
    ), {"relation": quote_identifier(relation)}).fetchall()
    return sorted({(name, what) for name, what in rows}, key=lambda row: row[1])


def _drop_own(pg, relation: str, kind: str, shown_url: str) -> None:
    """Drop pyeval's ``relation`` (and pyeval's views that read it, which are recreated), never
    an object pyeval did not create: when a view, foreign key or anything else of someone else
    depends on it, directly or through pyeval's views, nothing is dropped and the error lists them."""
    own_views = set(PORTABLE_VIEWS)
    foreign, queue, seen = [], [relation], {relation}
    while queue:
        for name, what in _dependants(pg, queue.pop()):
            if name in own_views:
                if name not in seen:
                    seen.add(name)
                    queue.append(name)
            elif what not in foreign:
                foreign.append(what)
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise NotOwnedError(
            f"{shown_url}: pyeval must recreate its {kind} {relation} (its columns changed), but {shown} "
            "depend on it, which pyeval did not create; pyeval drops nothing of yours (drop or change them first)")
    # every dependant is one of pyeval's views (recreated below): CASCADE reaches nothing else
    pg.exec_driver_sql(f"drop {kind} if exists {quote_identifier(relation)} cascade")


def _require_publication_target(relations: set[str], kept: set[str], schema: str, book: str,
                                shown_url: str) -> None:
    """Refuse a schema that holds tables or views with pyeval's names but was never published to
    (no ``pyeval_publications`` table in its bookkeeping schema ``book``, nor beside them as
    publications before that schema made it): publishing would drop or empty them. Refuse as well
    a schema named ``book`` that holds relations but no ``pyeval_publications``: it is someone
    else's, and pyeval would grant USAGE on it."""
    if kept and PUBLICATIONS_TABLE not in kept:
        shown = ", ".join(sorted(kept)[:3]) + (", ..." if len(kept) > 3 else "")
        raise NotOwnedError(f"{shown_url}: schema {book}, where pyeval keeps the bookkeeping of schema {schema}, "
                            f"holds {shown}, which pyeval did not make; pyeval leaves the database alone "
                            f"(drop or rename schema {book}, or publish to another schema)")
    ours = {*PUBLIC_TABLES, *MATERIALIZED_VIEWS, *PORTABLE_VIEWS}
    clashing = sorted(relations & ours)
    if clashing and PUBLICATIONS_TABLE not in kept | relations:
        shown = ", ".join(clashing[:3]) + (", ..." if len(clashing) > 3 else "")
        raise NotOwnedError(f"{shown_url}: holds {shown}, which pyeval did not publish (no {PUBLICATIONS_TABLE} "
                            f"table in schema {book}); pyeval leaves the database alone "
                            "(publish to another database or schema)")


def _watermark(con, pg) -> int | None:
    """The last evaluation published, if PostgreSQL holds exactly the warehouse's rows up to it;
    None when the evaluation tables must be copied whole."""
    import sqlalchemy as sa

    row = pg.execute(sa.text(
        "select evaluation_id, created_at from evaluations order by evaluation_id desc limit 1"
    )).first()
    if row is None:
        return 0
    evaluation_id, created_at = row
    ours = first_row(con, "select created_at from evaluations where evaluation_id = $e", {"e": evaluation_id})
    if ours is None or ours[0] != created_at:
        return None  # another warehouse, or a different history
    for name in EVALUATION_TABLES:
        here = first_row(con, f"select count(*) from {name} where evaluation_id <= $e", {"e": evaluation_id})[0]
        there = pg.execute(
            sa.text(f"select count(*) from {quote_identifier(name)} where evaluation_id <= :e"), {"e": evaluation_id}
        ).scalar_one()
        if here != there:
            return None
    return evaluation_id


def _changed_keys(con, pg, query: str, table: str, key: tuple[str, ...]) -> set[tuple]:
    """Leading key parts (all but the last two: sha256, loaded_at) whose rows differ between
    the warehouse and PostgreSQL's copy of ``table``."""
    ours = {tuple(row) for row in con.execute(query).fetchall()}
    columns = ", ".join(quote_identifier(c) for c in key)
    theirs = {tuple(row) for row in pg.exec_driver_sql(f"select {columns} from {quote_identifier(table)}").fetchall()}
    return {row[:-2] for row in ours ^ theirs}


def _replace_parts(con, pg, name: str, columns: dict, key: tuple[str, ...], parts: set[tuple] | None) -> int:
    """Delete then copy the rows of ``name`` whose ``key`` is in ``parts`` (None: every row)."""
    import pandas as pd
    import sqlalchemy as sa

    if parts is None:
        pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
        return _copy_rows(con, pg, name, [c for c, _ in columns[name]], f"select * from {name}", {})
    if not parts:
        return 0
    where = " and ".join(f"{quote_identifier(k)} = :{k}" for k in key)
    pg.execute(sa.text(f"delete from {quote_identifier(name)} where {where}"),
               [dict(zip(key, part)) for part in parts])
    frame = pd.DataFrame(sorted(parts), columns=list(key), dtype=object)
    con.register("publish_parts", frame)
    try:
        return _copy_rows(
            con, pg, name, [c for c, _ in columns[name]],
            f"select {name}.* from {name} semi join publish_parts using ({', '.join(key)})", {},
        )
    finally:
        con.unregister("publish_parts")
