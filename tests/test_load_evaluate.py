"""``pyeval load run --evaluate`` and ``pyeval load campaign --evaluate`` (issue 30): the runs
loaded are evaluated in the load's transaction; the scores equal a separate ``pyeval evaluate``
(which equals trec_eval: tests/compat), and a failed evaluation leaves the warehouse as it was."""
from __future__ import annotations

import shutil

import duckdb
import pytest
from click.testing import CliRunner

from pyeval.storage import warehouse
from pyeval.cli import main

from .conftest import FIXTURES

TREC = FIXTURES / "trec_eval"


def invoke(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output if code else result.stdout


def _scores(db) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("select run_id, topic_id, measure, value from scores order by all").fetchall()
    finally:
        con.close()


def test_load_run_evaluate_equals_a_separate_evaluate(tmp_path):
    together, apart = tmp_path / "together.duckdb", tmp_path / "apart.duckdb"
    for db in (together, apart):
        invoke("--db", db, "load", "qrels", "-C", "t", TREC / "qrels.test")
    out = invoke("--db", together, "load", "run", "-C", "t", TREC / "results.test", "--evaluate", "official",
                 "--evaluate", "nDCG@10")
    assert "run 'STANDARD'" in out and "STANDARD" in out.splitlines()[-1] and "AP" in out.splitlines()[1]
    invoke("--db", apart, "load", "run", "-C", "t", TREC / "results.test")
    invoke("--db", apart, "evaluate", "-C", "t", "-m", "official", "-m", "nDCG@10")
    assert _scores(together) == _scores(apart) and len(_scores(together)) > 0


def test_load_campaign_evaluate_in_one_transaction(tmp_path):
    folder = tmp_path / "trec6"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(TREC / "qrels.test", folder / "qrels.txt")
    shutil.copy(TREC / "results.test", folder / "runs" / "standard.txt")
    db = tmp_path / "w.duckdb"
    out = invoke("--db", db, "load", "campaign", folder, "--evaluate", "AP")
    assert "STANDARD" in out.splitlines()[-1]
    con = warehouse.connect(str(db), read_only=True)
    try:
        evaluations = con.execute("select count(*) from evaluations").fetchall()[0][0]
        stored = con.execute("select count(*) from scores where run_id = 'STANDARD' and measure = 'AP'").fetchall()
    finally:
        con.close()
    assert evaluations == 1 and stored == [(3,)]


def test_a_mistyped_measure_fails_before_loading(tmp_path):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "t", TREC / "qrels.test")
    out = invoke("--db", db, "load", "run", "-C", "t", TREC / "results.test", "--evaluate", "nDGC@10", code=1)
    assert "Error:" in out and "Traceback" not in out
    assert duckdb.connect(str(db), read_only=True).execute("select count(*) from runs").fetchall() == [(0,)]


def test_a_failed_evaluation_rolls_the_load_back(tmp_path):
    from pyeval.loaders import load_runs

    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "t", TREC / "qrels.test")
    con = warehouse.connect(str(db))
    try:
        def failing(con, campaign_id, run_ids):
            assert run_ids == ["STANDARD"]
            assert con.execute("select count(*) from run_entries").fetchall() == [(1500,)]  # stored, not committed
            raise RuntimeError("the evaluation failed")

        with pytest.raises(RuntimeError):
            load_runs(con, "t", [str(TREC / "results.test")], on_stored=failing)
        assert con.execute("select count(*) from runs").fetchall() == [(0,)]
        assert con.execute("select count(*) from run_entries").fetchall() == [(0,)]
    finally:
        con.close()
