"""The Python API from several threads (docs/reliability.md, "Threads"): the measure registry
loads once, and concurrent ``pyeval.connect()`` calls to one file all succeed, because opening
a current warehouse writes nothing."""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pyeval

from .helpers import digest, warehouse

ROOT = Path(__file__).resolve().parents[2]

#: A fresh interpreter (the registry is not loaded yet) parses in 8 threads at once.
REGISTRY_RACE = """
import sys, threading
sys.path.insert(0, sys.argv[1])
import pyeval.measures as measures
errors, barrier = [], threading.Barrier(8)
def parse():
    barrier.wait()
    try:
        measures.parse("AP")
        measures.parse("D_nDCG@10")
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=parse) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(errors), errors[:1])
"""


def test_the_registry_loads_once_under_concurrent_first_use():
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", REGISTRY_RACE, str(ROOT)], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("0 "), result.stdout


def _together(count: int, work) -> list[str]:
    """Run ``work`` in ``count`` threads released at once; the errors they raised."""
    errors, barrier = [], threading.Barrier(count)

    def run():
        barrier.wait()
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_concurrent_connects_to_one_warehouse_all_succeed(tmp_path):
    path = warehouse(tmp_path / "w.duckdb")
    before = digest(path)
    opened = []

    def connect_and_read():
        con = pyeval.connect(path)
        assert con.execute("select count(*) from scores").fetchall() == [(3,)]
        opened.append(con)

    assert _together(8, connect_and_read) == []
    for con in opened:
        con.close()
    assert digest(path) == before  # nothing was rewritten


def test_concurrent_connects_create_a_new_warehouse_once(tmp_path):
    path = tmp_path / "new.duckdb"
    opened = []
    assert _together(6, lambda: opened.append(pyeval.connect(path))) == []
    rows = opened[0].execute("select count(*) from schema_migrations").fetchall()
    for con in opened:
        con.close()
    from pyeval.core import sqlfiles

    assert rows == [(len(sqlfiles.migration_files()),)]


def test_threads_evaluate_on_their_own_connections_while_others_connect(tmp_path):
    path = warehouse(tmp_path / "w.duckdb")

    def evaluate():
        con = pyeval.connect(path)
        try:
            pyeval.evaluate(con, "c", ["P@10", "nDCG@10"], store=False)
        finally:
            con.close()

    assert _together(4, evaluate) == []
