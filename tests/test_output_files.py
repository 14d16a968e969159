"""End to end, the data losses of export-run --out and pool export FILE (issue 38): the
warehouse, a link, a FIFO (in a subprocess, under a deadline: it must not block) and a file
pyeval did not write are refused, an existing file replaced only with --replace; the library's
export_run and pools.export use the same guard. Every option of every command is checked
against the guard by tests/test_output_guard.py."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .reliability.helpers import cli, digest, one_line_error, warehouse


@pytest.fixture
def pooled(tmp_path):
    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    status, output = cli("--db", db, "pool", "build", "-C", "c", "--depth", "5", "--name", "p5")
    assert status == 0, output
    return db


def _run_name(db) -> str:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("select run_id from runs order by run_id limit 1").fetchone()[0]
    finally:
        con.close()


def _commands_writing(db, target, run):
    return {"export-run": ["--db", db, "export-run", "-C", "c", run, "--out", target],
            "pool export": ["--db", db, "pool", "export", "-C", "c", "p5", target]}


@pytest.mark.parametrize("command", ["export-run", "pool export"])
def test_export_run_and_pool_export_never_overwrite_the_warehouse(pooled, command):
    run = _run_name(pooled)
    before = digest(pooled)
    for extra in ([], ["--replace"]):
        status, output = cli(*_commands_writing(pooled, pooled, run)[command], *extra)
        assert status == 1 and "the warehouse itself" in one_line_error(output), output
        assert digest(pooled) == before


@pytest.mark.parametrize("command", ["export-run", "pool export"])
def test_export_run_and_pool_export_to_a_fifo_do_not_block(pooled, tmp_path, command):
    run = _run_name(pooled)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    args = [str(a) for a in _commands_writing(pooled, fifo, run)[command]]
    done = subprocess.run([sys.executable, "-m", "pyeval.cli", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "a FIFO" in done.stderr, done.stderr


@pytest.mark.parametrize("command", ["export-run", "pool export"])
def test_export_run_and_pool_export_replace_only_with_replace(pooled, tmp_path, command):
    run = _run_name(pooled)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    link = tmp_path / "link.txt"
    link.symlink_to(notes)
    status, output = cli(*_commands_writing(pooled, notes, run)[command])
    assert status == 1 and "give --replace to replace it" in one_line_error(output)
    assert notes.read_text() == "my notes\n"
    status, output = cli(*_commands_writing(pooled, link, run)[command], "--replace")
    assert status == 1 and "symbolic link" in one_line_error(output)
    assert notes.read_text() == "my notes\n" and link.is_symlink()
    status, output = cli(*_commands_writing(pooled, notes, run)[command], "--replace")
    assert status == 0 and "lines written to" in output, output
    assert notes.read_text() != "my notes\n" and not notes.is_symlink()
    new = tmp_path / "new.txt"
    status, output = cli(*_commands_writing(pooled, new, run)[command])
    assert status == 0 and new.read_text() == notes.read_text()


def test_the_library_functions_use_the_guard(pooled, tmp_path):
    import pyeval
    from pyeval.errors import NotOwnedError
    from pyeval.fusion import export_run
    from pyeval.pools import export

    con = pyeval.connect(pooled, read_only=True)
    try:
        with pytest.raises(NotOwnedError, match="the warehouse itself"):
            export_run(con, "c", _run_name(pooled), pooled)
        with pytest.raises(NotOwnedError, match="the warehouse itself"):
            export(con, "c", "p5", str(pooled), replace=True)
        notes = tmp_path / "n.txt"
        notes.write_text("x\n")
        with pytest.raises(NotOwnedError, match="replace=True"):
            export(con, "c", "p5", str(notes))
        assert export(con, "c", "p5", str(notes), replace=True) > 0
    finally:
        con.close()


def test_snapshot_removes_only_the_copies_a_killed_snapshot_proves_its_own(tmp_path):
    """A file named like a snapshot's half-written copy (.OUT.<dead pid>.<8 hex>.tmp) is removed
    by the next snapshot only with the marker a snapshot writes first (naming that copy)."""
    from pyeval.sharing.snapshot import _copy_marker, _copy_marker_text

    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    out = tmp_path / "dash.duckdb"
    dead = 4194304 + 12345
    theirs = tmp_path / f".{out.name}.{dead}.0ddba11a.tmp"
    theirs.write_text("my thesis\n")
    forged = tmp_path / f".{out.name}.{dead}.feedface.tmp"
    forged.write_text("my notes\n")
    _copy_marker(forged).write_text(_copy_marker_text(theirs))  # names another copy
    killed = tmp_path / f".{out.name}.{dead}.0badc0de.tmp"
    killed.write_bytes(b"half a copy")
    killed.with_name(killed.name + ".wal").write_bytes(b"log")
    _copy_marker(killed).write_text(_copy_marker_text(killed))
    status, output = cli("--db", db, "snapshot", out)
    assert status == 0, output
    assert theirs.read_text() == "my thesis\n" and forged.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{out.name}.")) == sorted(
        [theirs.name, forged.name, _copy_marker(forged).name])


@pytest.mark.parametrize("command", ["export-run", "pool export"])
def test_the_warehouse_write_ahead_log_is_refused_even_with_replace(pooled, command):
    """``w.duckdb.wal`` holds what a running process has not checkpointed yet: never replaced."""
    wal = pooled.with_name(pooled.name + ".wal")
    wal.write_bytes(b"a log DuckDB will replay")
    status, output = cli(*_commands_writing(pooled, wal, _run_name(pooled))[command], "--replace")
    assert status == 1 and "write-ahead log" in one_line_error(output), output
    assert wal.read_bytes() == b"a log DuckDB will replay"
