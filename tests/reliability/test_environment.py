"""Faults of the environment are reported as themselves (docs/reliability.md, "Disk full and
read-only file systems"): a failed commit is not hidden behind "cannot rollback - no transaction
is active", and a full or read-only file system gives one line naming the file and the cause.

The file-system tests mount a tiny tmpfs (a read-only directory made with chmod does not stop
root); where mounting is not permitted they are skipped, saying why.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import uuid

import duckdb
import pytest

import pyeval
from pyeval.storage import warehouse as pyeval_warehouse

from .helpers import RUN as RUN_FILE, cli, one_line_error, warehouse

NO_SPACE = "No space left on device"


class FailingCommit:
    """A connection whose commit fails as a full disk makes it fail: DuckDB has rolled the
    transaction back already when the error reaches the caller."""

    def __init__(self, con):
        self._con = con

    def __getattr__(self, name):
        return getattr(self._con, name)

    def commit(self):
        self._con.rollback()
        raise duckdb.IOException(f'IO Error: Could not write file "w.duckdb.wal": {NO_SPACE}')


def test_a_failed_commit_of_the_views_is_reported_as_itself():
    con = pyeval.connect()
    with pytest.raises(duckdb.IOException, match=NO_SPACE):
        pyeval_warehouse.create_views(FailingCommit(con))
    con.close()


def test_a_failed_commit_of_an_evaluation_is_reported_as_itself(tmp_path):
    con = pyeval.connect(warehouse(tmp_path / "w.duckdb", evaluate=False))
    with pytest.raises(duckdb.IOException, match=NO_SPACE):
        pyeval.evaluate(FailingCommit(con), "c", ["AP"])
    assert con.execute("select count(*) from evaluations").fetchall() == [(0,)]
    with pytest.raises(duckdb.IOException, match=NO_SPACE):
        pyeval.define_gain_profile(FailingCommit(con), "c", "g", "1:2")
    con.close()


# ---------------------------------------------------------------------------------- tmpfs


@contextlib.contextmanager
def tmpfs(path, size: str):
    """A tmpfs of ``size`` mounted at ``path`` (skips the test where mounting is not allowed)."""
    path.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", f"pyeval-{uuid.uuid4().hex[:8]}",
                             str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip() or 'mount failed'}); "
                    "a chmod'ed folder does not stop root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _fill(folder, leave: int = 0) -> None:
    """Fill a file system up to ``leave`` bytes."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    with open(folder / "filler", "wb") as handle:
        with contextlib.suppress(OSError):
            handle.write(b"\0" * max(0, free - leave))


def _read_only(folder) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)


@pytest.fixture
def source(tmp_path):
    return warehouse(tmp_path / "w.duckdb")


def test_export_and_snapshot_to_a_full_disk(tmp_path, source):
    with tmpfs(tmp_path / "mnt", "256k") as mount:
        _fill(mount, leave=16 * 1024)
        status, output = cli("--db", source, "export", "--parquet", mount / "export")
        line = one_line_error(output)
        assert status == 1 and str(mount) in line and NO_SPACE in line, line
        status, output = cli("--db", source, "snapshot", mount / "snap.duckdb")
        line = one_line_error(output)
        assert status == 1 and str(mount / "snap.duckdb") in line and NO_SPACE in line, line
        assert sorted(p.name for p in mount.iterdir()) == ["filler"]  # nothing half-written left


def test_export_and_snapshot_to_a_read_only_file_system(tmp_path, source):
    with tmpfs(tmp_path / "mnt", "1m") as mount:
        _read_only(mount)
        status, output = cli("--db", source, "export", "--parquet", mount / "export")
        line = one_line_error(output)
        assert status == 1 and str(mount) in line and "Read-only file system" in line, line
        status, output = cli("--db", source, "snapshot", mount / "snap.duckdb")
        line = one_line_error(output)
        assert status == 1 and str(mount / "snap.duckdb") in line and "Read-only file system" in line, line


def test_evaluate_and_load_on_a_full_disk_fail_in_one_line_and_keep_the_warehouse(tmp_path):
    with tmpfs(tmp_path / "mnt", "16m") as mount:  # room for the warehouse and its checkpoint
        path = warehouse(mount / "w.duckdb", evaluate=False)
        _fill(mount)
        measures = [arg for m in ("AP", "P@5", "P@10", "nDCG@10", "RR", "R@100", "Bpref", "infAP") for arg in ("-m", m)]
        status, output = cli("--db", path, "evaluate", "-C", "c", *measures)
        assert status == 1, output
        line = one_line_error(output)
        assert "no transaction is active" not in line and (NO_SPACE in line or "space" in line.lower()), line
        (mount / "filler").unlink()
        con = pyeval.connect(path, read_only=True)
        assert con.execute("select count(*) from evaluations").fetchall() == [(0,)]
        assert con.execute("select count(*) from runs").fetchall() == [(1,)]
        con.close()


def test_a_load_that_fails_part_way_reports_its_own_error_not_the_clean_up(tmp_path, monkeypatch):
    """The clean-up (drop the batch's temporary table) of an aborted transaction used to raise
    "Current transaction is aborted", hiding the disk-full error that stopped the load."""
    from pyeval.core import sqlfiles
    from pyeval.loaders import runs as run_loader

    path = warehouse(tmp_path / "w.duckdb", evaluate=False)
    real = sqlfiles.read

    def failing(name):
        if name == "loaders/run_insert.sql":  # the insert fails with an IO error, as on a full disk
            return ("copy (select $campaign_id, $first_file, $last_file, $order_check_lines) "
                    f"to '{tmp_path}/no-such-folder/x.csv'")
        return real(name)

    monkeypatch.setattr(run_loader.sqlfiles, "read", failing)
    status, output = cli("--db", path, "load", "run", "-C", "c", "--name", "b", RUN_FILE)
    line = one_line_error(output)
    assert status == 1 and "no-such-folder" in line and "aborted" not in line, line
    monkeypatch.undo()
    con = pyeval.connect(path, read_only=True)
    assert con.execute("select count(*) from runs").fetchall() == [(1,)]
    con.close()


class InvalidatedOnRollback:
    """A connection whose statement fails as a full disk makes it fail, after which DuckDB has
    invalidated the database: the rollback raises a second, fatal error."""

    def __init__(self, con):
        self._con = con

    def __getattr__(self, name):
        return getattr(self._con, name)

    def rollback(self):
        raise duckdb.FatalException("FATAL Error: database has been invalidated because of a previous fatal error")


def test_an_invalidated_database_on_rollback_does_not_hide_the_error_that_caused_it():
    from pyeval.core.db import transaction

    con = InvalidatedOnRollback(pyeval.connect())
    with pytest.raises(duckdb.IOException, match=NO_SPACE):
        with transaction(con):
            raise duckdb.IOException(f'IO Error: Could not write file "w.duckdb.wal": {NO_SPACE}')
    con._con.close()


def test_a_fatal_error_is_one_line(tmp_path, monkeypatch):
    from pyeval.cli import loading

    path = warehouse(tmp_path / "w.duckdb", evaluate=False)

    def fatal(*args, **kwargs):
        raise duckdb.FatalException("FATAL Error: database has been invalidated because of a previous fatal error")

    monkeypatch.setattr(pyeval.loaders, "load_runs", fatal)
    monkeypatch.setattr(loading, "load_runs", fatal, raising=False)
    status, output = cli("--db", path, "load", "run", "-C", "c", "--name", "b", RUN_FILE)
    assert status == 1 and "invalidated" in one_line_error(output)
