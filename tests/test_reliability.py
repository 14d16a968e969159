"""Reliability: a load or an evaluation killed with SIGKILL mid-way (in a subprocess) loses
nothing committed and leaves nothing half-written; names with quotes, semicolons or SQL in them
are stored verbatim (never spliced into SQL text)."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main

from .conftest import FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"

#: Runs a load or an evaluation in a child process whose commit never comes: the connection
#: handed to pyeval stalls in commit() (after every statement of the transaction ran), so the
#: parent kills the child while its transaction is open.
STALLING_CHILD = """
import pathlib, sys, time
import pyeval

class StallingConnection:
    def __init__(self, con):
        self._con = con
    def __getattr__(self, name):
        return getattr(self._con, name)
    def commit(self):
        pathlib.Path(sys.argv[3]).write_text("in the transaction")
        time.sleep(600)

con = StallingConnection(pyeval.connect(sys.argv[1]))
if sys.argv[2] == "load":
    pyeval.load_run(con, "c", sys.argv[4], name="big")
elif sys.argv[2] == "load_many":  # a folder of runs, one batch
    pyeval.load_runs(con, "c", [sys.argv[4]])
else:
    pyeval.evaluate(con, "c", ["AP", "nDCG@10", "P@10"])
"""

#: Loads or evaluates repeatedly until killed.
LOOPING_CHILD = """
import sys
import pyeval

con = pyeval.connect(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    i += 1
    if sys.argv[2] == "load":
        pyeval.load_run(con, "c", sys.argv[3], name=f"big{i}")
    else:
        pyeval.evaluate(con, "c", ["AP", "nDCG@10", "P@10", "RR"])
"""


def _warehouse(path):
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    pyeval.evaluate(con, "c", ["AP"])
    state = snapshot(con)
    con.close()
    return state


def _big_run(path, lines: int = 300_000):
    topics = ("301", "302", "303")
    with open(path, "w") as handle:
        handle.writelines(f"{topics[i % 3]} Q0 doc{i} {i // 3 + 1} {1000000 - i} big\n" for i in range(lines))
    return path


def _kill_when(marker, child) -> None:
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert child.poll() is None, child.stderr.read()
        assert time.monotonic() < deadline, "the child never reached its commit"
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)


def _whole_evaluations(con) -> list[tuple]:
    """(evaluation_id, per-topic rows, means, inputs, measures) of every stored evaluation."""
    return con.execute(
        "select e.evaluation_id, "
        "(select count(*) from topic_scores t where t.evaluation_id = e.evaluation_id), "
        "(select count(*) from evaluation_means m where m.evaluation_id = e.evaluation_id), "
        "(select count(*) from evaluation_inputs i where i.evaluation_id = e.evaluation_id), "
        "(select count(*) from evaluation_measures s where s.evaluation_id = e.evaluation_id) "
        "from evaluations e order by 1"
    ).fetchall()


def _many_runs(folder, files: int = 40, lines: int = 5_000):
    folder.mkdir()
    for number in range(files):
        with open(folder / f"run{number:02d}.txt", "w") as handle:
            handle.writelines(f"30{i % 3 + 1} Q0 doc{i} {i // 3 + 1} {lines - i} tag{number}\n" for i in range(lines))
    return folder


@pytest.mark.parametrize("what", ["load", "load_many", "evaluate"])
def test_sigkill_inside_the_transaction_leaves_the_warehouse_as_committed(tmp_path, what):
    path = tmp_path / "w.duckdb"
    before = _warehouse(path)
    marker = tmp_path / "marker"
    source = _many_runs(tmp_path / "runs") if what == "load_many" else _big_run(tmp_path / "big.txt")
    child = subprocess.Popen(
        [sys.executable, "-c", STALLING_CHILD, str(path), what, str(marker), str(source)],
        stderr=subprocess.PIPE, text=True,
    )
    _kill_when(marker, child)
    assert child.returncode == -signal.SIGKILL
    con = pyeval.connect(path)
    assert snapshot(con) == before
    assert con.execute("select count(*) from scores").fetchall() == [(6,)]
    con.close()


@pytest.mark.parametrize("what", ["load", "evaluate"])
def test_sigkill_at_any_moment_keeps_whole_loads_and_evaluations(tmp_path, what):
    path = tmp_path / "w.duckdb"
    before = _warehouse(path)
    big = _big_run(tmp_path / "big.txt", 100_000)
    for delay in (0.3, 1.1, 2.3):
        child = subprocess.Popen([sys.executable, "-c", LOOPING_CHILD, str(path), what, str(big)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        con = pyeval.connect(path)
        now = snapshot(con)
        # everything committed before is still there, unchanged
        for table in ("qrels_by_set", "campaigns", "topics", "campaign_inputs"):
            assert now[table] == before[table]
        assert set(before["topic_scores"]) <= set(now["topic_scores"])
        assert set(before["run_entries"]) <= set(now["run_entries"])
        # every load and evaluation that is visible is whole
        sizes = dict(con.execute("select run_id, count(*) from run_entries group by run_id").fetchall())
        assert all(sizes[run] == 100_000 for run in sizes if run.startswith("big"))
        assert {row[0] for row in now["runs"]} == {"c"} and len(now["runs"]) == len(sizes)
        for evaluation in _whole_evaluations(con)[1:]:
            assert evaluation[1:] == (24, 8, 3, 4), evaluation
        done = len(sizes) - 2 if what == "load" else len(now["evaluations"]) - 1
        con.close()
    assert done > 0  # the children did commit work before they were killed


ODD_NAMES = {
    "campaign": "web'24; drop table runs; --",
    "run": 'bm25"); delete from qrels; --',
    "system": "sys'tem; select 1",
    "tag": "'; drop table run_tags; --",
}


def test_names_with_quotes_and_sql_are_stored_verbatim(tmp_path):
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    campaign, run = ODD_NAMES["campaign"], ODD_NAMES["run"]
    steps = [
        ["load", "qrels", "-C", campaign, str(QRELS)],
        ["load", "run", "-C", campaign, "--name", run, "--system", ODD_NAMES["system"], "--tag", ODD_NAMES["tag"],
         "--date", "2024-02-29", str(RUN)],
        ["evaluate", "-C", campaign, "-m", "AP", "-m", "P@5", "--runs", run],
        ["annotate", "-C", campaign, "--team", "o'brien", run],
    ]
    for step in steps:
        result = runner.invoke(main, ["--db", db, *step])
        assert result.exit_code == 0, (step, result.output)
    # a measure name holding SQL is a user error, not SQL
    bad = runner.invoke(main, ["--db", db, "evaluate", "-C", campaign, "-m", "AP'); drop table qrels; --"])
    assert bad.exit_code == 1 and bad.output.startswith("Error: ")
    con = pyeval.connect(db, read_only=True)
    assert con.execute("select campaign_id, run_id, system, team from runs").fetchall() == [
        (campaign, run, ODD_NAMES["system"], "o'brien")
    ]
    assert con.execute("select tag from run_tags").fetchall() == [(ODD_NAMES["tag"],)]
    assert con.execute("select count(*) from qrels").fetchall() == [(3681,)]
    assert con.execute("select distinct campaign_id, run_id from scores").fetchall() == [(campaign, run)]
    assert con.execute("select input_name from evaluation_inputs where input_kind = 'run'").fetchall() == [(run,)]
    assert con.execute("select count(*) from run_means where system = $s", {"s": ODD_NAMES["system"]}).fetchall() == [(2,)]
    con.close()
    listed = runner.invoke(main, ["--db", db, "list", "--format", "csv", "--only", "runs"])
    assert campaign in listed.output and run.replace('"', '""') in listed.output
