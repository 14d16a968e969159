"""BI access and sharing (pyeval/sharing/): url, snapshot, Parquet export and attach, and a
reader process querying a snapshot while a writer process evaluates."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import duckdb
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

import pyeval
from pyeval import sharing
from pyeval.core import sqlfiles
from pyeval.storage import compat, warehouse
from pyeval.storage.public import INTERNAL_SCHEMA, PUBLIC_VIEWS
from pyeval.cli import main
from pyeval.errors import PyevalError

from .conftest import FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"
ODD = "c'; drop table runs; --"  # a campaign name that would break spliced SQL


def _build(path):
    con = pyeval.connect(path)
    for campaign in ("plain", ODD):
        pyeval.load_qrels(con, campaign, QRELS)
        pyeval.load_run(con, campaign, RUN, name='bm25 "x"',
                        metadata=pyeval.RunMetadata(system="s'1", run_date="2024-03-01", tags=("a;b",)))
        pyeval.load_run(con, campaign, RUN_TRUNC, name="r2")
        pyeval.evaluate(con, campaign, ["AP", "P@10"])
    pyeval.define_gain_profile(con, "plain", "g", "1:2")
    pyeval.evaluate(con, "plain", ["nDCG(gain=g)@5"])
    return con


@pytest.fixture
def built(tmp_path):
    path = tmp_path / "w.duckdb"
    _build(path).close()
    return path


def test_quote_identifier():
    assert sharing.quote_identifier("scores") == '"scores"'
    assert sharing.quote_identifier('a"b; drop') == '"a""b; drop"'
    con = duckdb.connect()
    name = 'we"ird; select 1 --'
    con.execute(f"create table {sharing.quote_identifier(name)} (x int)")
    assert con.execute("select table_name from duckdb_tables()").fetchall() == [(name,)]
    with pytest.raises(PyevalError):
        sharing.quote_identifier("a\x00b")


def test_url_reflects_public_tables_and_views(built):
    from urllib.parse import quote

    result = CliRunner().invoke(main, ["--db", str(built), "url"])
    assert result.exit_code == 0, result.output
    url = result.stdout.strip()
    assert "snapshot --for CLIENT" in result.stderr  # a working warehouse: the copy for clients is named
    assert url == (f"duckdb:///{built}?access_mode=read_only&autoinstall_known_extensions=false"
                   "&autoload_known_extensions=false&enable_external_access=false&lock_configuration=true"
                   f"&temp_directory={quote(str(built) + '/.pyeval-no-temporary-files', safe='')}")
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    # schema main holds the public API and nothing else; the engine's views are in pyeval_internal
    assert set(inspector.get_table_names()) == set(sharing.PUBLIC_TABLES)
    assert set(inspector.get_view_names()) == set(PUBLIC_VIEWS)
    assert set(inspector.get_view_names(schema=INTERNAL_SCHEMA)) == set(sqlfiles.VIEW_ORDER) - set(PUBLIC_VIEWS)
    assert [c["name"] for c in inspector.get_columns("run_means")] == [
        "campaign_id", "run_id", "system", "team", "run_date", "measure", "value", "topics", "evaluation_id",
        "evaluated_at", "measure_name", "aggregate", "higher_is_better", "judgment_set",
    ]
    assert [c["name"] for c in inspector.get_columns("score_history")][-2:] == ["is_current", "is_latest"]
    with engine.connect() as connection:
        rows = connection.execute(sa.text("select count(*) from scores where campaign_id = :c"), {"c": ODD})
        assert rows.scalar() == 12
        with pytest.raises(sa.exc.DBAPIError, match="read-only"):
            connection.execute(sa.text("delete from runs"))
    engine.dispose()
    missing = CliRunner().invoke(main, ["--db", str(built.parent / "none.duckdb"), "url"])
    assert missing.exit_code == 1 and missing.output.startswith("Error: ") and "no such warehouse" in missing.output


def test_snapshot_is_an_equal_warehouse_that_opens_read_only(built, tmp_path):
    out = tmp_path / "dash'board.duckdb"
    result = CliRunner().invoke(main, ["--db", str(built), "snapshot", str(out)])
    assert result.exit_code == 0, result.output
    assert "last evaluation 3" in result.output
    source = pyeval.connect(built, read_only=True)
    copy = pyeval.connect(out, read_only=True)
    assert warehouse.views_current(copy)
    assert snapshot(copy) == snapshot(source)
    for view in ("scores", "run_means", "score_history"):
        query = f"select * from {view} order by all"
        assert copy.execute(query).fetchall() == source.execute(query).fetchall()
    copy.close()
    source.close()
    # a second snapshot replaces the first; a file that is not a warehouse is refused
    assert CliRunner().invoke(main, ["--db", str(built), "snapshot", str(out)]).exit_code == 0
    other = tmp_path / "notes.txt"
    other.write_text("keep me\n")
    refused = CliRunner().invoke(main, ["--db", str(built), "snapshot", str(other)])
    assert refused.exit_code == 1 and "is not a pyeval snapshot" in refused.output
    assert other.read_text() == "keep me\n"
    same = CliRunner().invoke(main, ["--db", str(built), "snapshot", str(built)])
    assert same.exit_code == 1 and "cannot overwrite the warehouse" in same.output


def test_snapshot_in_an_older_storage_version(built, tmp_path):
    out = tmp_path / "old.duckdb"
    con = pyeval.connect(built, read_only=True)
    sharing.snapshot(con, out, storage_version="v1.4.0")  # DuckDB 1.4 and later write it
    con.close()
    probe = duckdb.connect()
    target, parameters = compat.attached_file(str(out))
    probe.execute(f"attach {target} as s (read_only)", parameters)
    version = probe.execute("select tags['storage_version'] from duckdb_databases() where database_name = 's'").fetchall()
    assert version and version[0][0] is not None and version[0][0].startswith("v1.4")
    probe.close()
    with pytest.raises(PyevalError, match="storage version"):
        sharing.snapshot(pyeval.connect(), tmp_path / "x.duckdb", storage_version="1.5; drop")


def test_snapshots_taken_while_evaluations_run_hold_whole_evaluations(tmp_path):
    con = pyeval.connect(tmp_path / "w.duckdb")
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    stop = threading.Event()

    def evaluate_repeatedly():
        writer = con.cursor()
        while not stop.is_set():
            pyeval.evaluate(writer, "c", ["AP", "P@10", "nDCG@10", "RR"])
        writer.close()

    thread = threading.Thread(target=evaluate_repeatedly)
    thread.start()
    try:
        seen = set()
        for i in range(6):
            out = tmp_path / f"snap{i}.duckdb"
            report = sharing.snapshot(con, out)
            copy = duckdb.connect(str(out), read_only=True)
            # every evaluation in the copy is whole: 2 runs x 3 topics x 4 measures, 8 means, 3 inputs
            counts = copy.execute(
                "select e.evaluation_id, (select count(*) from topic_scores t where t.evaluation_id = e.evaluation_id), "
                "(select count(*) from evaluation_means m where m.evaluation_id = e.evaluation_id), "
                "(select count(*) from evaluation_inputs i where i.evaluation_id = e.evaluation_id) from evaluations e"
            ).fetchall()
            copy.close()
            assert all(row[1:] == (24, 8, 3) for row in counts), counts
            assert report.last_evaluation_id == (max(r[0] for r in counts) if counts else None)
            seen.add(len(counts))
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join()
        con.close()
    assert len(seen) > 1  # the evaluations did go on between snapshots


WRITER = """
import sys, pyeval
con = pyeval.connect(sys.argv[1])
print("ready", flush=True)
for _ in range(int(sys.argv[2])):
    pyeval.evaluate(con, "c", ["AP", "P@10", "nDCG@10"])
con.close()
"""


def test_a_reader_process_queries_a_snapshot_while_a_writer_process_evaluates(built, tmp_path):
    out = tmp_path / "dash.duckdb"
    con = pyeval.connect(built, read_only=True)
    sharing.snapshot(con, out)
    expected = con.execute("select count(*) from scores").fetchall()
    con.close()
    writer = subprocess.Popen([sys.executable, "-c", WRITER.replace('"c"', repr("plain")), str(built), "5"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        # the writer holds its file: no other process may open it, not even read-only
        with pytest.raises(PyevalError, match="cannot open the warehouse"):
            pyeval.connect(built, read_only=True)
        queries = 0
        while writer.poll() is None and queries < 50:
            reader = pyeval.connect(out, read_only=True)  # a second process: this one
            assert reader.execute("select count(*) from scores").fetchall() == expected
            reader.close()
            queries += 1
    finally:
        assert writer.wait(timeout=300) == 0
    assert queries > 0


def test_export_and_attach_round_trip(built, tmp_path):
    target = tmp_path / "export"
    result = CliRunner().invoke(main, ["--db", str(built), "export", "--parquet", str(target)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["format"] == sharing.EXPORT_FORMAT and manifest["last_evaluation_id"] == 3
    assert set(manifest["tables"]) == {*sharing.PUBLIC_TABLES, "scores", "scores_by_set"}
    assert manifest["tables"]["topic_scores"]["partitioned_by"] == "campaign_id"
    assert len(manifest["tables"]["topic_scores"]["files"]) == 2  # one folder per campaign
    assert manifest["tables"]["evaluation_measures"]["partitioned_by"] is None
    source = pyeval.connect(built, read_only=True)
    attached = sharing.attach_export(target)
    for table in sharing.PUBLIC_TABLES:
        query = f"select * from {table} order by all"
        assert attached.execute(query).fetchall() == source.execute(query).fetchall(), table
    for view in ("scores", "score_history", "run_means", "monthly_means", "campaign_overview"):
        query = f"select * from {view} order by all"
        assert attached.execute(query).fetchall() == source.execute(query).fetchall(), view
    attached.close()
    source.close()
    listed = CliRunner().invoke(main, ["attach", str(target), "--format", "csv"])
    assert listed.exit_code == 0 and "topic_scores,30,2,campaign_id" in listed.output
    queried = CliRunner().invoke(main, ["attach", str(target), "select count(*) as n from scores", "--format", "csv"])
    assert queried.output.splitlines() == ["n", "30"]
    # an existing export needs --replace; a tampered file is detected
    again = CliRunner().invoke(main, ["--db", str(built), "export", "--parquet", str(target)])
    assert again.exit_code == 1 and "--replace" in again.output
    assert CliRunner().invoke(main, ["--db", str(built), "export", "--parquet", str(target), "--replace"]).exit_code == 0
    part = target / json.loads((target / "manifest.json").read_text())["tables"]["runs"]["files"][0]["path"]
    part.write_bytes(part.read_bytes()[:-10])
    broken = CliRunner().invoke(main, ["attach", str(target)])
    assert broken.exit_code == 1 and "was changed after the export" in broken.output


def test_export_and_attach_refuse_bad_directories(built, tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("x")
    result = CliRunner().invoke(main, ["--db", str(built), "export", "--parquet", str(busy)])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "holds no pyeval export" in result.output
    for bad, message in ((tmp_path / "nowhere", "no such directory"), (busy, "not a pyeval export")):
        result = CliRunner().invoke(main, ["attach", str(bad)])
        assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
