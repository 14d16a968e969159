"""Read-only means read-only (docs/reliability.md): ``pyeval sql`` without ``--write``, the
read-only URL and ``pyeval attach`` read no file but their own, write none, and install or
load no extension."""
from __future__ import annotations

import pytest
import sqlalchemy as sa

from pyeval import sharing

from .helpers import cli, digest, one_line_error, warehouse

#: statement -> a word of the refusal. INSTALL and LOAD name extensions DuckDB would download.
REFUSED = {
    "copy (select 1 as x) to '{out}'": "COPY",
    "select * from read_csv('{secret}')": "",
    "attach '{other}' as other": "ATTACH",
    "install sqlite": "INSTALL",
    "load sqlite": "LOAD",
    "set enable_external_access = true": "",
    "export database '{folder}'": "EXPORT",
}


@pytest.fixture
def files(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a,b\n1,2\n")
    other = warehouse(tmp_path / "other.duckdb", evaluate=False)
    return {"out": tmp_path / "out.csv", "secret": secret, "other": other, "folder": tmp_path / "dump"}


def _statements(files):
    return [(statement.format(**files), word) for statement, word in REFUSED.items()]


def test_sql_without_write_refuses_files_and_extensions(tmp_path, files):
    db = warehouse(tmp_path / "w.duckdb")
    before, other_before = digest(db), digest(files["other"])
    for statement, word in _statements(files):
        status, output = cli("--db", db, "sql", statement)
        line = one_line_error(output)
        assert status == 1 and word in line, (statement, line)
        assert "--external-access" in line or "Cannot change configuration" in line, line
    assert not files["out"].exists() and not files["folder"].exists()
    assert digest(db) == before and digest(files["other"]) == other_before
    status, output = cli("--db", db, "sql", "select count(*) as n from scores")
    assert status == 0 and "3" in output


def test_external_access_and_write_open_files_explicitly(tmp_path, files):
    db = warehouse(tmp_path / "w.duckdb")
    status, output = cli("--db", db, "sql", "--external-access", f"select * from read_csv('{files['secret']}')")
    assert status == 0 and "1" in output
    status, output = cli("--db", db, "sql", "--external-access", f"copy (select 1 as x) to '{files['out']}'")
    assert status == 0 and files["out"].read_text() == "x\n1\n"
    status, output = cli("--db", db, "sql", "--external-access", "delete from runs")
    assert status == 1 and "read-only" in one_line_error(output)
    status, output = cli("--db", db, "sql", "--write", f"select count(*) from read_csv('{files['secret']}')")
    assert status == 0


def test_the_read_only_url_refuses_files_and_extensions(tmp_path, files):
    db = warehouse(tmp_path / "w.duckdb")
    before = digest(db)
    engine = sa.create_engine(sharing.sqlalchemy_url(db))
    for statement, _ in _statements(files):
        with engine.connect() as connection, pytest.raises(sa.exc.DBAPIError):
            connection.execute(sa.text(statement))
    with engine.connect() as connection:
        assert connection.execute(sa.text("select count(*) from scores")).scalar() == 3
    engine.dispose()
    assert not files["out"].exists() and digest(db) == before


def test_the_read_only_url_writes_nothing_into_an_existing_temporary_folder(tmp_path):
    """DuckDB lets COPY ... TO write into its temporary folder (``<db>.tmp`` by default) even with
    external access off; the read-only URL (the function's and ``pyeval url``'s) puts that folder
    inside the warehouse file, where it cannot exist, so an existing ``<db>.tmp/`` stays empty."""
    db = warehouse(tmp_path / "w.duckdb")
    spill = tmp_path / "w.duckdb.tmp"
    spill.mkdir()
    before = digest(db)
    status, printed = cli("--db", db, "url")
    assert status == 0, printed
    for url in (sharing.sqlalchemy_url(db), printed.splitlines()[-1]):  # the URL after a note
        engine = sa.create_engine(url)
        for target in (spill / "x.csv", tmp_path / ".tmp" / "x.csv"):
            with engine.connect() as connection, pytest.raises(sa.exc.DBAPIError):
                connection.execute(sa.text(f"copy (select 1 as x) to '{target}' (use_tmp_file false)"))
        engine.dispose()
    assert list(spill.iterdir()) == [] and not (tmp_path / ".tmp").exists() and digest(db) == before


def test_attach_refuses_files_and_extensions_and_keeps_the_export_intact(tmp_path, files):
    db = warehouse(tmp_path / "w.duckdb")
    export = tmp_path / "export"
    assert cli("--db", db, "export", "--parquet", export)[0] == 0
    before = digest(export)
    parquet = next(export.joinpath("runs").rglob("*.parquet"))
    statements = [*_statements(files),
                  (f"copy (select 1 as x) to '{parquet}' (format parquet, use_tmp_file false)", "COPY"),
                  (f"copy (select 1 as x) to '{export}/runs/x.parquet' (format parquet)", "COPY")]
    for statement, word in statements:
        status, output = cli("attach", export, statement)
        assert status == 1 and word in one_line_error(output), (statement, output)
    status, output = cli("attach", export, "select count(*) as n from scores")
    assert status == 0 and "3" in output
    assert digest(export) == before and not files["out"].exists()
    status, output = cli("attach", "--external-access", export, f"select * from read_csv('{files['secret']}')")
    assert status == 0 and "2" in output


# ---------------------------------------------------------------------------------- every statement kind

#: One statement of every kind DuckDB's parser knows (duckdb.StatementType), with whether a
#: read-only query may run it. ``{out}`` is a file of the export (attach) or beside the warehouse.
STATEMENT_KINDS = {
    "SELECT": ("select count(*) from runs", True),
    "INSERT": ("insert into runs (campaign_id, run_id) values ('x', 'y')", False),
    "UPDATE": ("update runs set run_tag = 'x'", False),
    "CREATE": ("create temp table t as select 1", False),
    "DELETE": ("delete from runs", False),
    "PREPARE": ("prepare p as copy (select 1 as x) to '{out}' (format parquet)", False),
    "EXECUTE": ("execute p", False),
    "ALTER": ("alter table runs add column x integer", False),
    "TRANSACTION": ("begin", False),
    "COPY": ("copy (select 1 as x) to '{out}' (format parquet)", False),
    "ANALYZE": ("analyze", False),
    "VARIABLE_SET": ("set variable x = 1", False),
    "CREATE_FUNC": ("create macro m(a) as a", False),
    "EXPLAIN": ("explain analyze copy (select 1 as x) to '{out}' (format parquet)", False),
    "DROP": ("drop view scores", False),
    "EXPORT": ("export database '{folder}'", False),
    "PRAGMA": ("pragma version", True),
    "VACUUM": ("vacuum", False),
    "CALL": ("call pragma_version()", True),
    "SET": ("set threads = 1", False),
    "LOAD": ("load sqlite", False),
    "EXTENSION": ("update extensions", False),
    "ATTACH": ("attach '{out}.db' as other", False),
    "DETACH": ("detach other", False),
    "COPY_DATABASE": ("copy from database memory to other", False),
    "MERGE_INTO": ("merge into runs using (select 1 as x) s on false when not matched then do nothing", False),
}
#: Kinds no SQL text parses to (plans and relations of the Python API, multi-statement wrappers).
NOT_FROM_TEXT = {"INVALID", "RELATION", "LOGICAL_PLAN", "MULTI"}


def test_every_statement_kind_is_listed():
    import duckdb

    assert set(duckdb.StatementType.__members__) - NOT_FROM_TEXT == set(STATEMENT_KINDS)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A warehouse with its spill folder (which must stay empty) and an export of it."""
    folder = tmp_path_factory.mktemp("kinds")
    db = warehouse(folder / "w.duckdb")
    (folder / "w.duckdb.tmp").mkdir()
    assert cli("--db", db, "export", "--parquet", folder / "export")[0] == 0
    return folder


@pytest.mark.parametrize("kind", sorted(STATEMENT_KINDS))
def test_read_only_sql_and_attach_write_nothing_whatever_the_statement(exported, kind):
    tmp_path = exported
    db, export = tmp_path / "w.duckdb", tmp_path / "export"
    parquet = next(export.glob("runs/**/*.parquet"))
    before = {"db": digest(db), "export": digest(export)}
    statement, allowed = STATEMENT_KINDS[kind]
    for args in (["--db", db, "sql"], ["attach", export]):
        target = parquet if args[0] == "attach" else tmp_path / "out.parquet"
        text = statement.format(out=target, folder=tmp_path / "dump")
        status, output = cli(*args, text)
        if allowed:
            assert status == 0, (args, output)
        else:
            line = one_line_error(output)  # refused, or (COPY FROM DATABASE) failing to bind
            assert status == 1 and ("refused" in line or "Binder Error" in line), (args, text, output)
    assert {"db": digest(db), "export": digest(export)} == before
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "dump").exists()
    assert list((tmp_path / "w.duckdb.tmp").iterdir()) == []


@pytest.mark.parametrize("text", ["", ";", " ; ; "])
def test_an_empty_query_is_one_line(tmp_path, text):
    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    status, output = cli("--db", db, "sql", text)
    assert status == 1 and "no SQL statement given" in one_line_error(output)
