"""SIGKILL at random moments of ``snapshot`` and ``publish`` (each in a child process, as in
tests/test_reliability.py): the target is afterwards the old complete copy or the new complete
copy, never a mix, and the source warehouse is byte-identical. ``PYEVAL_KILL_SEED`` picks
other moments."""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

import pyeval
from pyeval import sharing

from ..conftest import snapshot
from .helpers import QRELS, RUN, digest

ROOT = Path(__file__).resolve().parents[2]
KILLS = 6
SEED = int(os.environ.get("PYEVAL_KILL_SEED", "20261124"))

# Child processes killed at six moments each, a PostgreSQL server for publish: the core suite's
# two slowest tests (~70 s of CPU together); `-m slow` and .ci/run run them.
pytestmark = pytest.mark.slow


def _big_run(path: Path, lines: int) -> Path:
    topics = ("301", "302", "303")
    with open(path, "w") as handle:
        handle.writelines(f"{topics[i % 3]} Q0 doc{i} {i // 3 + 1} {lines - i} big\n" for i in range(lines))
    return path


def _warehouse(path: Path, tmp_path: Path) -> None:
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", _big_run(tmp_path / "big.txt", 100_000), name="big")
    pyeval.evaluate(con, "c", ["AP"])
    con.close()


def _grow(path: Path) -> None:
    """A second state of the warehouse: one more run and one more evaluation."""
    con = pyeval.connect(path)
    pyeval.load_run(con, "c", RUN, name="b")
    pyeval.evaluate(con, "c", ["AP", "P@10"])
    con.close()


def _cli(path: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "pyeval.cli", "--db", str(path), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _duration(path: Path, *args: str) -> float:
    started = time.monotonic()
    child = _cli(path, *args)
    _, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    return time.monotonic() - started


def _kill_after(path: Path, delay: float, *args: str) -> int:
    child = _cli(path, *args)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=60)
    return child.returncode


def _moments(duration: float) -> list[float]:
    """KILLS moments spread over a run of ``duration`` seconds (one in each slice), shuffled."""
    rng = random.Random(SEED)
    return [duration * (i + rng.random()) / KILLS for i in rng.sample(range(KILLS), KILLS)]


def _file_rows(path: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return snapshot(con)
    finally:
        con.close()


def test_sigkill_during_snapshot_leaves_the_old_or_the_new_snapshot(tmp_path):
    path = tmp_path / "w.duckdb"
    out = tmp_path / "dash.duckdb"
    _warehouse(path, tmp_path)
    _duration(path, "snapshot", str(out))
    old = _file_rows(out)
    _grow(path)
    new = _file_rows(path)
    assert new != old
    source = digest(path)
    duration = _duration(path, "snapshot", str(tmp_path / "timed.duckdb"))
    outcomes = set()
    for delay in _moments(duration):
        status = _kill_after(path, delay, "snapshot", str(out))
        rows = _file_rows(out)
        assert rows in (old, new), f"killed after {delay:.2f} s: the snapshot is neither the old nor the new copy"
        outcomes.add((status == -signal.SIGKILL, rows == new))
        assert digest(path) == source
    assert (True, False) in outcomes, outcomes  # some kill did land before the new copy was in place
    # the next snapshot removes the copies the killed ones left, not a running one's
    running = tmp_path / f".{out.name}.{os.getpid()}.0123abcd.tmp"
    running.write_bytes(b"")
    _duration(path, "snapshot", str(out))
    assert _file_rows(out) == new
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{out.name}.")) == [running.name]



def _published(url: str) -> dict[str, list[tuple]]:
    """Every row of every published table and view (the publications log aside), sorted, read
    in one snapshot: a killed client's COMMIT may still be landing on the server, and statements
    read one by one (READ COMMITTED) could then see some tables before it and some after."""
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1),
                              isolation_level="REPEATABLE READ")
    try:
        with engine.connect() as pg, pg.begin():
            return {
                name: sorted(map(tuple, pg.execute(sa.text(f'select * from "{name}"')).fetchall()), key=repr)
                for name in (*sharing.PUBLIC_TABLES, *sharing.MATERIALIZED_VIEWS, *sharing.PORTABLE_VIEWS)
            }
    finally:
        engine.dispose()


def test_sigkill_during_publish_leaves_the_old_or_the_new_publication(tmp_path, postgres_url):
    path = tmp_path / "w.duckdb"
    first = tmp_path / "first.duckdb"  # the old state, published again before each kill
    _warehouse(path, tmp_path)
    shutil.copyfile(path, first)
    _duration(first, "publish", "--full", postgres_url)
    old = _published(postgres_url)
    _grow(path)
    source = digest(path)
    # the time of a full copy of the new state (a kill may land after an incremental one committed)
    duration = _duration(path, "publish", "--full", postgres_url)
    new = _published(postgres_url)
    assert new != old
    outcomes = set()
    for delay in _moments(duration):
        _duration(first, "publish", "--full", postgres_url)
        assert _published(postgres_url) == old
        status = _kill_after(path, delay, "publish", "--full", postgres_url)
        state = _published(postgres_url)
        assert state in (old, new), f"killed after {delay:.2f} s: the database is neither the old nor the new copy"
        outcomes.add((status == -signal.SIGKILL, state == new))
        assert digest(path) == source
    assert (True, False) in outcomes, outcomes

