"""Files that are not pyeval's are left byte-identical (docs/reliability.md, "Foreign files"):
every command that creates, migrates, overwrites or deletes a file first proves it is pyeval's."""
from __future__ import annotations

import json
import sqlite3

import duckdb
import pytest

import pyeval
from pyeval import demo, sharing
from pyeval.storage import ownership
from pyeval.storage import warehouse
from pyeval.errors import NotAWarehouseError, NotOwnedError, PyevalError

from .helpers import QRELS, RUN, cli, digest, foreign_duckdb, one_line_error, warehouse as make_warehouse

# ---------------------------------------------------------------------------------- warehouses


@pytest.mark.parametrize("args", [
    ["list"],
    ["sql", "select 1"],
    ["sql", "--write", "select 1"],
    ["url"],
    ["snapshot", "{tmp}/snap.duckdb"],
    ["export", "--parquet", "{tmp}/export"],
    ["load", "qrels", "-C", "c", str(QRELS)],
    ["load", "run", "-C", "c", str(RUN)],
    ["evaluate", "-C", "c", "-m", "AP"],
    ["evaluate", "-C", "c", "-m", "AP", "--no-store"],
    ["gains", "-C", "c", "g", "1:2"],
])
def test_a_foreign_duckdb_file_is_refused_by_every_command_and_left_byte_identical(tmp_path, args):
    path = foreign_duckdb(tmp_path / "theirs.duckdb", "qrels", "schema_migrations_x")
    before = digest(path)
    status, output = cli("--db", path, *[a.format(tmp=tmp_path) for a in args])
    assert status == 1
    assert "not a pyeval warehouse" in one_line_error(output)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.duckdb"]


def test_a_foreign_schema_migrations_table_is_not_taken_for_a_warehouse(tmp_path):
    path = tmp_path / "rails.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table schema_migrations (version integer, name varchar, checksum varchar)")
    con.execute("insert into schema_migrations values (1, 'initial', 'not pyeval''s sha256')")
    con.close()
    before = digest(path)
    with pytest.raises(NotAWarehouseError, match="not a pyeval warehouse"):
        pyeval.connect(path)
    with pytest.raises(NotAWarehouseError, match="not a pyeval warehouse"):
        pyeval.connect(path, read_only=True)
    assert digest(path) == before


def test_a_sqlite_file_is_refused_before_duckdb_opens_it(tmp_path, monkeypatch):
    path = tmp_path / "app.sqlite"
    con = sqlite3.connect(path)
    con.execute("create table qrels (x)")
    con.commit()
    con.close()
    before = digest(path)
    # DuckDB would install the sqlite extension for it: the test fails fast if anything tries
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    for args in (["list"], ["load", "qrels", "-C", "c", QRELS]):
        status, output = cli("--db", path, *args)
        assert status == 1 and "not a DuckDB database file" in one_line_error(output)
    assert digest(path) == before


def test_new_empty_and_missing_files_become_warehouses(tmp_path):
    missing = tmp_path / "new.duckdb"
    zero = tmp_path / "zero.duckdb"
    zero.touch()
    empty_db = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty_db)).close()
    for path in (missing, zero, empty_db):
        status, output = cli("--db", path, "load", "qrels", "-C", "c", QRELS)
        assert status == 0, output
        con = pyeval.connect(path, read_only=True)
        assert ownership.marker(con) == ownership.WAREHOUSE_MARKER
        con.close()


def test_read_only_commands_refuse_empty_files_and_create_nothing(tmp_path):
    zero = tmp_path / "zero.duckdb"
    zero.touch()
    for args in (["list"], ["sql", "select 1"], ["url"]):
        status, output = cli("--db", zero, *args)
        assert status == 1 and "not a pyeval warehouse" in one_line_error(output)
        status, output = cli("--db", tmp_path / "missing.duckdb", *args)
        assert status == 1 and "no such warehouse" in one_line_error(output)
    assert zero.stat().st_size == 0 and not (tmp_path / "missing.duckdb").exists()


def _older_pyeval_warehouse(path):
    """A warehouse as a pyeval without markers left it: the marker comment removed."""
    make_warehouse(path)
    con = duckdb.connect(str(path))
    con.execute("comment on table pyeval_internal.schema_migrations is null")
    con.close()
    probe = duckdb.connect(str(path), read_only=True)
    assert ownership.marker(probe) == ""
    probe.close()


def test_a_warehouse_of_an_older_pyeval_is_recognised_by_its_migration_checksums(tmp_path):
    path = tmp_path / "old.duckdb"
    _older_pyeval_warehouse(path)
    before = digest(path)
    status, output = cli("--db", path, "list")  # read-only: recognised, not written to
    assert status == 0 and "c" in output
    assert digest(path) == before
    status, output = cli("--db", path, "load", "run", "-C", "c", "--name", "b", RUN)
    assert status == 0, output
    con = pyeval.connect(path, read_only=True)
    assert ownership.marker(con) == ownership.WAREHOUSE_MARKER  # written on its first read-write open
    con.close()


def test_opening_a_current_warehouse_read_write_does_not_change_the_file(tmp_path):
    path = make_warehouse(tmp_path / "w.duckdb")
    before = digest(path)
    pyeval.connect(path).close()
    assert digest(path) == before


# ---------------------------------------------------------------------------------- snapshot


def test_snapshot_refuses_a_foreign_duckdb_file_even_with_a_schema_migrations_table(tmp_path):
    source = make_warehouse(tmp_path / "w.duckdb")
    out = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(out))
    con.execute("create table schema_migrations (version integer)")
    con.execute("create table precious (x integer)")
    con.execute("insert into precious values (42)")
    con.close()
    before = digest(out)
    status, output = cli("--db", source, "snapshot", out)
    assert status == 1 and "not a pyeval snapshot" in one_line_error(output)
    assert digest(out) == before
    (tmp_path / "notes.txt").write_text("mine\n")
    status, output = cli("--db", source, "snapshot", tmp_path / "notes.txt")
    assert status == 1 and (tmp_path / "notes.txt").read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "theirs.duckdb", "w.duckdb"]


def test_snapshot_replaces_an_earlier_snapshot(tmp_path):
    source = make_warehouse(tmp_path / "w.duckdb")
    out = tmp_path / "snap.duckdb"
    assert cli("--db", source, "snapshot", out)[0] == 0
    assert cli("--db", source, "snapshot", out)[0] == 0  # its own earlier copy: replaced
    con = duckdb.connect(str(out), read_only=True)
    assert ownership.marker(con) == ownership.SNAPSHOT_MARKER  # marked as a snapshot, read-only
    con.close()


def test_snapshot_never_replaces_a_working_warehouse(tmp_path):
    source = make_warehouse(tmp_path / "w.duckdb")
    other = make_warehouse(tmp_path / "other.duckdb")
    before = digest(other)
    status, output = cli("--db", source, "snapshot", other)
    assert status == 1 and "a working warehouse" in one_line_error(output)
    assert digest(other) == before
    # a snapshot someone opened to write into becomes a working warehouse: no longer replaced
    out = tmp_path / "snap.duckdb"
    assert cli("--db", source, "snapshot", out)[0] == 0
    assert cli("--db", out, "gains", "-C", "c", "g", "1:2")[0] == 0
    before = digest(out)
    status, output = cli("--db", source, "snapshot", out)
    assert status == 1 and "a working warehouse" in one_line_error(output)
    assert digest(out) == before


# ---------------------------------------------------------------------------------- exports


@pytest.fixture
def exported(tmp_path):
    source = make_warehouse(tmp_path / "w.duckdb")
    target = tmp_path / "export"
    status, output = cli("--db", source, "export", "--parquet", target)
    assert status == 0, output
    return source, target


def test_export_replace_refuses_a_folder_with_files_the_export_did_not_write(exported):
    source, target = exported
    (target / "notes.txt").write_text("my notes\n")
    before = digest(target)
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 1 and "notes.txt, which the export did not write" in one_line_error(output)
    assert digest(target) == before


def test_export_replace_refuses_a_hand_made_manifest(tmp_path):
    source = make_warehouse(tmp_path / "w.duckdb")
    target = tmp_path / "notes"
    target.mkdir()
    (target / "manifest.json").write_text('{"title": "my notes"}\n')
    (target / "notes.txt").write_text("my notes\n")
    before = digest(target)
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 1 and "not a pyeval export manifest" in one_line_error(output)
    assert digest(target) == before


def test_export_replace_refuses_an_edited_manifest(exported):
    source, target = exported
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["tables"]["runs"]["rows"] = 99
    (target / "manifest.json").write_text(json.dumps(manifest))
    before = digest(target)
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 1 and "seal does not match" in one_line_error(output)
    assert digest(target) == before
    with pytest.raises(PyevalError, match="seal does not match"):
        sharing.attach_export(target)


def test_manifest_paths_never_leave_the_export_folder(exported, tmp_path):
    source, target = exported
    outside = tmp_path / "outside.parquet"
    duckdb.connect().execute(f"copy (select 1 as x) to '{outside}' (format parquet)")
    manifest = json.loads((target / "manifest.json").read_text())
    for path in ("../outside.parquet", str(outside), "runs/../../outside.parquet"):
        manifest["tables"]["runs"]["files"][0]["path"] = path
        manifest["seal"] = ownership.seal(manifest)  # even a correctly sealed manifest
        (target / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(NotOwnedError, match="leaves the export folder"):
            sharing.attach_export(target, verify=False)
        status, output = cli("--db", source, "export", "--parquet", target, "--replace")
        assert status == 1 and "leaves the export folder" in one_line_error(output)
    assert outside.exists()


def test_export_replace_refuses_symbolic_links_in_the_folder(exported, tmp_path):
    source, target = exported
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep\n")
    (target / "link").symlink_to(elsewhere)
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 1 and "which the export did not write" in one_line_error(output)
    assert (elsewhere / "keep.txt").read_text() == "keep\n"


def test_an_export_made_before_seals_is_recognised_by_its_files(exported):
    source, target = exported
    manifest = json.loads((target / "manifest.json").read_text())
    del manifest["seal"]
    (target / "manifest.json").write_text(json.dumps(manifest))
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 0, output
    assert "seal" in json.loads((target / "manifest.json").read_text())


def test_export_replace_still_replaces_its_own_export(exported):
    source, target = exported
    status, output = cli("--db", source, "export", "--parquet", target, "--replace")
    assert status == 0, output
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["seal"] == ownership.seal(manifest)


# ---------------------------------------------------------------------------------- demo


def test_demo_out_refuses_a_warehouse_whose_campaigns_are_named_like_the_demos(tmp_path):
    path = tmp_path / "mine.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "web2012", QRELS)
    con.close()
    before = digest(path)
    with pytest.raises(NotOwnedError, match="not a warehouse pyeval demo built"):
        demo._prepare(path)
    assert digest(path) == before


def test_demo_out_replaces_a_warehouse_the_demo_built(tmp_path):
    path = tmp_path / "demo.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "web2012", QRELS)
    con.begin()
    ownership.mark(con, ownership.DEMO_MARKER)
    con.commit()
    con.close()
    demo._prepare(path)
    assert not path.exists()


def test_a_mark_that_is_not_pyevals_is_refused():
    con = warehouse.connect()
    with pytest.raises(ValueError):
        ownership.mark(con, "x'; drop table runs; --")
    con.close()
