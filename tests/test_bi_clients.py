"""Snapshots and URLs for BI clients (issue 31; docs/bi.md "Client matrix"): ``pyeval snapshot
--for CLIENT`` / ``--duckdb-version`` write the storage format that client's DuckDB reads and only
the public API in the default schema; ``pyeval url --settable`` lets a client set options and
stays read-only. The clients themselves are run by tools/bi_clients_check.py (not part of the
tests: it installs them)."""
from __future__ import annotations

import duckdb
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

import pyeval
from pyeval import sharing
from pyeval.core import duckdb_trees, sqlfiles
from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.storage import compat
from pyeval.storage.public import INTERNAL_SCHEMA, PUBLIC_VIEWS
from pyeval.sharing.snapshot import CLIENT_DUCKDB, storage_version_for

from .conftest import FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("clients") / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a", metadata=pyeval.RunMetadata(system="bm25", run_date="2024-03-01"))
    pyeval.evaluate(con, "c", ["AP", "NumRet(rel=1)"])
    con.close()
    return path


def _storage_version(path) -> str:
    probe = duckdb.connect()
    target, parameters = compat.attached_file(str(path))
    probe.execute(f"attach {target} as s (read_only)", parameters)
    found = probe.execute("select tags['storage_version'] from duckdb_databases() where database_name = 's'").fetchone()[0]
    probe.close()
    return found


def test_storage_version_of_each_client_and_version(monkeypatch):
    monkeypatch.setattr(duckdb_trees, "DUCKDB_VERSION", (2, 0))  # pyeval on DuckDB 2.0
    assert storage_version_for("evidence") == "v1.4.0"
    assert storage_version_for("superset") == "v1.5.0"
    assert storage_version_for(duckdb_version="1.4.2") == "v1.4.0"
    assert storage_version_for("superset", "1.4") == "v1.4.0"  # the version wins
    assert storage_version_for() is None
    for client in CLIENT_DUCKDB:
        assert storage_version_for(client).startswith("v")


def test_a_client_newer_than_the_installed_duckdb_gets_its_format(monkeypatch):
    monkeypatch.setattr(duckdb_trees, "DUCKDB_VERSION", (1, 4))  # pyeval on DuckDB 1.4
    assert storage_version_for("superset") == storage_version_for("duckdb") == "v1.4.0"
    assert storage_version_for("superset", "1.1") == "v1.1.0"
    with pytest.raises(PyevalError, match=r"DuckDB 1.5 is newer than the DuckDB writing the snapshot"):
        storage_version_for(duckdb_version="1.5")


@pytest.mark.parametrize("arguments, message", [
    (["--for", "metabase"], "unknown client 'metabase': choose one of superset"),
    (["--duckdb-version", "1.x"], "DuckDB version must look like 1.4"),
    (["--duckdb-version", "0.9"], "DuckDB 0.9 reads no file pyeval can write"),
    (["--duckdb-version", "9.0"], "DuckDB 9.0 is newer than the DuckDB writing the snapshot"),
    (["--duckdb-version", "1.4", "--storage-version", "v1.4.0"], "give --storage-version or --duckdb-version, not both"),
])
def test_unknown_clients_and_versions_are_refused_in_one_line(built, tmp_path, arguments, message):
    out = tmp_path / "s.duckdb"
    result = CliRunner().invoke(main, ["--db", str(built), "snapshot", *arguments, str(out)])
    assert result.exit_code == 1 and result.output.startswith(f"Error: {message}"), result.output
    assert result.output.count("\n") == 1 and not out.exists()


def test_a_snapshot_for_a_client_holds_the_public_api_in_its_format(built, tmp_path):
    out = tmp_path / "dash.duckdb"
    result = CliRunner().invoke(main, ["--db", str(built), "snapshot", "--for", "evidence", str(out)])
    assert result.exit_code == 0, result.output
    assert "v1.4.0 format, catalog dash" in result.output
    assert _storage_version(out).startswith("v1.4")
    copy = duckdb.connect(str(out), read_only=True)
    default = {name for name, in copy.execute(
        "select table_name from duckdb_tables() where schema_name = 'main' "
        "union all select view_name from duckdb_views() where schema_name = 'main' and not internal").fetchall()}
    assert default == set(sharing.PUBLIC_TABLES) | set(PUBLIC_VIEWS)
    internal = {name for name, in copy.execute(
        "select table_name from duckdb_tables() where schema_name = $s "
        "union all select view_name from duckdb_views() where schema_name = $s", {"s": INTERNAL_SCHEMA}).fetchall()}
    assert internal == {"schema_migrations", "derived_objects"} | (set(sqlfiles.VIEW_ORDER) - set(PUBLIC_VIEWS))
    source = pyeval.connect(built, read_only=True)
    for view in ("leaderboard", "scores", "monthly_means"):
        query = f"select * from {view} order by all"
        assert copy.execute(query).fetchall() == source.execute(query).fetchall(), view
    # the engine's views still work from their schema (they read one another and main's tables)
    assert copy.execute(f"select count(*) from {INTERNAL_SCHEMA}.ranked_entries").fetchone() == \
        source.execute("select count(*) from ranked_entries").fetchone()
    # the descriptions travel with the copy
    assert copy.execute("select comment from duckdb_views() where view_name = 'scores'").fetchone()[0].startswith(
        "The public per-topic results")
    copy.close()
    source.close()
    # a later snapshot replaces it, for the same or another client; a working warehouse is not replaced
    again = CliRunner().invoke(main, ["--db", str(built), "snapshot", "--for", "superset", str(out)])
    assert again.exit_code == 0, again.output
    assert _storage_version(out).startswith(storage_version_for("superset").removesuffix(".0"))  # v1.5; v1.4 on 1.4
    plain = CliRunner().invoke(main, ["--db", str(built), "snapshot", str(out)])
    assert plain.exit_code == 0, plain.output
    other = tmp_path / "work.duckdb"
    pyeval.connect(other).close()
    refused = CliRunner().invoke(main, ["--db", str(built), "snapshot", "--for", "ibis", str(other)])
    assert refused.exit_code == 1 and "is not a pyeval snapshot" in refused.output


def test_url_of_a_client_snapshot_and_the_settable_variant_stay_read_only(built, tmp_path):
    out = tmp_path / "dash.duckdb"
    con = pyeval.connect(built, read_only=True)
    sharing.snapshot(con, out, client="duckdb")
    con.close()
    locked = CliRunner().invoke(main, ["--db", str(out), "url"])
    settable = CliRunner().invoke(main, ["--db", str(out), "url", "--settable"])
    assert locked.exit_code == 0 and settable.exit_code == 0, (locked.output, settable.output)
    assert "lock_configuration=true" in locked.output and "lock_configuration" not in settable.output
    assert locked.stderr == ""  # a copy for clients: no note
    assert "access_mode=read_only" in settable.output and "enable_external_access=false" in settable.output
    refused = CliRunner().invoke(main, ["--db", str(out), "url", "--read-write"])
    assert refused.exit_code == 1 and "is read-only" in refused.output
    engine = sa.create_engine(settable.output.strip())
    with engine.connect() as connection:
        connection.exec_driver_sql("set timezone = 'UTC'")  # what Ibis does on connecting
        assert connection.exec_driver_sql("select count(*) from scores").scalar() == 6  # 3 topics x 2 measures
        assert set(sa.inspect(connection).get_view_names()) == set(PUBLIC_VIEWS)
        for statement, error in (("delete from runs", "read-only"),
                                 ("set enable_external_access = true", "external.access"),  # 1.x: enable_external_access
                                 ("select * from read_csv('/etc/passwd')", "disabled"),
                                 ("set access_mode = 'read_write'", "access_mode")):
            with pytest.raises(sa.exc.DBAPIError, match=error):
                connection.exec_driver_sql(statement)
            connection.rollback()
    engine.dispose()
    both = CliRunner().invoke(main, ["--db", str(out), "url", "--settable", "--read-write"])
    assert both.exit_code == 1 and both.output.count("\n") == 1
    # pyeval reads it as the read-only warehouse it is (docs/bi.md), and writes nothing to it
    read = CliRunner().invoke(main, ["--db", str(out), "sql", "select count(*) as n from scores", "--format", "csv"])
    assert read.exit_code == 0 and read.output == "n\n6\n", read.output
    listed = CliRunner().invoke(main, ["--db", str(out), "list"])
    assert listed.exit_code == 0 and "c" in listed.output, listed.output
    before = out.read_bytes()
    for command in (["sql", "delete from runs", "--write"], ["load", "qrels", "-C", "x", str(QRELS)]):
        refused = CliRunner().invoke(main, ["--db", str(out), *command])
        assert refused.exit_code == 1 and "a snapshot for BI clients" in refused.output, refused.output
        assert refused.output.count("\n") == 1
    assert out.read_bytes() == before


def test_a_client_snapshot_names_its_catalog_after_its_file_and_unqualified_names_follow_a_rename(built, tmp_path):
    """The catalog a client sees is the file's stem; queries that name relations unqualified (or
    as main.X) keep working when the file is renamed, which is why docs/bi.md builds Superset's
    datasets on schema main or from SQL Lab."""
    out = tmp_path / "dash.duckdb"
    con = pyeval.connect(built, read_only=True)
    report = sharing.snapshot(con, out, client="superset")
    con.close()
    assert report.catalog == "dash" and report.storage_version == storage_version_for("superset")  # v1.5.0; v1.4.0 on 1.4
    moved = out.rename(tmp_path / "renamed.duckdb")
    copy = duckdb.connect(str(moved), read_only=True)
    assert copy.execute("select current_database()").fetchone() == ("renamed",)
    assert copy.execute("select count(*) from main.leaderboard").fetchone() == (2,)
    with pytest.raises((duckdb.CatalogException, duckdb.BinderException)):  # DuckDB 1.5: a Binder Error
        copy.execute("select count(*) from dash.main.leaderboard")
    copy.close()
    # a dataset's SQL that names no catalog (Superset's SQL Lab dataset, docs/bi.md step 5), through
    # the URL pyeval prints for the renamed file, and pyeval sql on it (a --for copy is a warehouse)
    url = CliRunner().invoke(main, ["--db", str(moved), "url"])
    assert url.exit_code == 0 and "renamed.duckdb" in url.output, url.output
    engine = sa.create_engine(url.output.strip())
    with engine.connect() as connection:
        assert connection.exec_driver_sql("select current_database()").scalar() == "renamed"
        assert connection.exec_driver_sql(
            "select count(*) from (select * from leaderboard) where measure = 'AP'").scalar() == 1
        assert connection.exec_driver_sql("select count(*) from main.scores").scalar() == 6
    engine.dispose()
    query = "select run_id, measure, value from run_means order by measure"
    read = CliRunner().invoke(main, ["--db", str(moved), "sql", query, "--format", "csv"])
    assert read.exit_code == 0, read.output
    source = pyeval.connect(built, read_only=True)
    means = source.execute(query).fetchall()
    source.close()
    lines = read.output.splitlines()
    assert lines[0] == "run_id,measure,value" and len(means) == 2
    assert [(r, m, float(v)) for r, m, v in (line.split(",") for line in lines[1:])] == means


def test_snapshot_layout_does_not_change_the_plain_snapshot(built, tmp_path):
    out = tmp_path / "plain.duckdb"
    con = pyeval.connect(built, read_only=True)
    sharing.snapshot(con, out, duckdb_version="1.4")
    copy = pyeval.connect(out, read_only=True)  # an ordinary warehouse, in DuckDB 1.4's format
    assert snapshot(copy) == snapshot(con)
    copy.close()
    con.close()
    assert _storage_version(out).startswith("v1.4")


def test_the_demo_dates_its_runs_and_names_systems_so_trend_views_have_rows(tmp_path):
    from pyeval.demo import build_demo

    path = tmp_path / "demo.duckdb"
    build_demo(path)
    con = pyeval.connect(path, read_only=True)
    assert con.execute("select count(*) from runs where system is null or run_date is null").fetchone() == (0,)
    assert con.execute("select count(distinct tag) from run_tags where tag in ('real', 'simulated')").fetchone() == (2,)
    trend = con.execute(
        "select system, count(*), sum(runs) from monthly_means where campaign_id = 'web2012-adhoc' "
        "and measure = 'nDCG@10' group by system order by system").fetchall()
    assert trend == [("indri", 2, 2), ("simulated-a", 6, 6), ("simulated-b", 6, 6), ("simulated-c", 6, 6)]
    # a month's mean is the mean of that month's runs' values in run_means
    month = con.execute("select mean_value from monthly_means where campaign_id = 'web2012-adhoc' and "
                        "measure = 'nDCG@10' and system = 'indri' and month = date '2012-06-01'").fetchone()[0]
    assert month == con.execute("select value from run_means where campaign_id = 'web2012-adhoc' and "
                                "measure = 'nDCG@10' and run_id = 'indri-ql'").fetchone()[0]
    con.close()
