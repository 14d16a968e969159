"""Two processes loading into one warehouse file at once: DuckDB lets one process hold the
file, so both succeed (one after the other) or the second fails with one line about the lock,
exit status 1, and the warehouse holds the first load whole and nothing of the second."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pyeval

from .helpers import QRELS

ROOT = Path(__file__).resolve().parents[2]
LINES = 100_000


def _run_file(path: Path, tag: str) -> Path:
    topics = ("301", "302", "303")
    with open(path, "w") as handle:
        handle.writelines(f"{topics[i % 3]} Q0 doc{i} {i // 3 + 1} {LINES - i} {tag}\n" for i in range(LINES))
    return path


@pytest.mark.parametrize("stagger", [0.0, 0.4])
def test_two_processes_loading_at_once_both_succeed_or_the_second_fails_in_one_line(tmp_path, stagger):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    con.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    children = {}
    for name in ("first", "second"):
        run = _run_file(tmp_path / f"{name}.txt", name)
        children[name] = subprocess.Popen(
            [sys.executable, "-m", "pyeval.cli", "--db", str(path), "load", "run", "-C", "c", "--name", name, str(run)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        time.sleep(stagger)
    results = {name: (child.wait(timeout=300), *child.communicate()) for name, child in children.items()}
    loaded = {name for name, (status, _, _) in results.items() if status == 0}
    assert loaded, results
    for name, (status, out, err) in results.items():
        assert status in (0, 1), (name, status, err)
        if status == 1:
            assert "Traceback" not in err and err.count("\n") == 1, err
            assert err.startswith(f"Error: {path}: ") and "lock" in err, err
    con = pyeval.connect(path, read_only=True)
    sizes = dict(con.execute("select run_id, count(*) from run_entries group by run_id").fetchall())
    assert sizes == {name: LINES for name in loaded}  # whole loads only, nothing of a failed one
    assert {row[0] for row in con.execute("select run_id from runs").fetchall()} == loaded
    assert con.execute("select count(*) from qrels").fetchone()[0] == 3681
    con.close()
