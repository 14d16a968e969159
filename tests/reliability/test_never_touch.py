"""Files pyeval must never touch (issue 32, "Files pyeval must never touch"): a ``--db`` that is a
device, a FIFO, a socket or a directory is refused before anything is opened, unlinked or
created; nothing hangs on a FIFO."""
from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import QRELS, cli, one_line_error, warehouse

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args) -> tuple[int, str]:
    """The pyeval command in a child process, killed after 60 s (a FIFO must not block the suite)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        result = subprocess.run([sys.executable, "-m", "pyeval.cli", *map(str, args)], capture_output=True,
                                text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pyeval {' '.join(map(str, args))} blocked for 60 s")
    return result.returncode, result.stdout + result.stderr


def _fake_device(path):
    """A character device node like /dev/null (1, 3) at ``path`` (skips where mknod is refused)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


@pytest.fixture(params=["fifo", "directory", "device", "socket"])
def special(request, tmp_path):
    path = tmp_path / f"special-{request.param}"
    if request.param == "fifo":
        os.mkfifo(path)
    elif request.param == "directory":
        path.mkdir()
    elif request.param == "device":
        _fake_device(path)
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        request.addfinalizer(server.close)
    return request.param, path


def _mode(path):
    return os.lstat(path).st_mode


@pytest.mark.parametrize("args", [
    ["load", "qrels", "-C", "x", str(QRELS)],
    ["list"],
    ["sql", "select 1"],
    ["evaluate", "-C", "x", "-m", "AP"],
])
def test_a_db_that_is_not_a_regular_file_is_refused_and_left_as_it_was(special, args):
    kind, path = special
    before = _mode(path)
    status, output = (run_cli if kind == "fifo" else cli)("--db", path, *args)
    line = one_line_error(output)
    assert status == 1 and str(path) in line and "pyeval leaves it alone" in line, line
    assert _mode(path) == before  # still the same kind of node: not unlinked, not replaced
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    if kind == "directory":
        assert list(path.iterdir()) == []


def test_a_device_is_refused_and_stays_a_device(tmp_path):
    """A node like /dev/null (made here: the real /dev/null is only looked at, never passed)."""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    device = _fake_device(tmp_path / "null")
    status, output = run_cli("--db", device, "load", "qrels", "-C", "x", QRELS)
    assert status == 1 and "a character device" in one_line_error(output)
    assert stat.S_ISCHR(os.lstat(device).st_mode) and os.lstat(device).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_snapshot_onto_a_fifo_is_refused_without_waiting(tmp_path):
    db = warehouse(tmp_path / "w.duckdb")
    fifo = tmp_path / "snap.duckdb"
    os.mkfifo(fifo)
    status, output = run_cli("--db", db, "snapshot", fifo)
    assert status == 1 and "pyeval leaves it alone" in one_line_error(output)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_an_empty_db_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, output = cli("--db", "", "list")
    assert status != 0 and "must not be empty" in output and "Traceback" not in output
    assert list(tmp_path.iterdir()) == []
