"""pyeval explain (pyeval.core.plan.describe): what an evaluation runs, step by step (issue 39,
item 3: show what runs). The steps it prints are the steps the DuckDB engine executes."""
from __future__ import annotations

import re

import pandas as pd
import pytest
from click.testing import CliRunner

import pyeval
from pyeval import sample
from pyeval.cli import main
import pyeval.core.compile
from pyeval.core import stages
from pyeval.core.evaluation import resolve
from pyeval.core.plan import describe, plan
from pyeval.core.request import EvaluationRequest

STEP = re.compile(r"^  (macros|stage|family|driver) +(?:sql/)?(\S+?)(?::| ->| \(Python\)| compiled for |$)")


@pytest.fixture(scope="module")
def campaigns():
    """The sample's diversity campaign d and ad hoc campaign a, two runs each."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "d", sample.path("qrels.diversity.txt.gz"))
    pyeval.load_intents(con, "d", sample.path("intents.uniform.txt"))
    pyeval.load_qrels(con, "a", sample.path("qrels.adhoc.txt.gz"))
    for campaign in ("a", "d"):
        pyeval.load_runs(con, campaign, sample.run_paths()[:2], names=["r1", "r2"])
    yield con
    con.close()


@pytest.mark.parametrize("campaign, measures", [("a", ["AP", "nDCG@10", "P@10", "RR"]),
                                                ("d", ["Dsharp_nDCG@10", "IA_Q@10", "alpha_nDCG@10"])])
def test_the_printed_steps_are_the_steps_the_engine_runs(campaigns, monkeypatch, campaign, measures):
    """Every step the DuckDB engine executes for an evaluation is printed, in order: the plan's
    steps and the lists a Python family's driver stages for itself."""
    request = resolve(campaigns, EvaluationRequest.build(campaign, measures))
    printed = [STEP.match(line).groups() for line in describe(plan(request)).splitlines() if STEP.match(line)]
    ran = []
    for kind in ("macros", "stage", "family", "driver"):
        original = getattr(stages.DuckDBExecutor, kind)

        def recording(self, step, *args, _kind=kind, _original=original):
            ran.append((_kind, step.model))
            return _original(self, step, *args)

        monkeypatch.setattr(stages.DuckDBExecutor, kind, recording)
    stages.compute_into(campaigns, request)
    assert ran == printed and len(ran) > 3


def test_the_command_prints_the_plan_and_its_sql(tmp_path):
    runner = CliRunner()
    plain = runner.invoke(main, ["explain", "-m", "AP", "-m", "nDCG@10", "-m", "P@10"])
    assert plain.exit_code == 0, plain.output
    lines = plain.output.splitlines()
    assert lines[0] == "pass 1: adhoc staging, ordering trec: AP, nDCG@10, P@10"
    assert "  family     sql/metrics/metric_average_precision.sql compiled for AP: AP" in lines
    assert re.fullmatch(r"\d+ SQL statements, \d+ lines of SQL", lines[-1])
    assert "$max_depth = 4611686018427387904 (no depth limit)" in plain.output
    with_sql = runner.invoke(main, ["explain", "-m", "AP", "--sql"]).output
    # a stage's file as it is; a family's statement as compiled for AP (pyeval.core.compile)
    assert pyeval.core.sqlfiles.read("evaluation/evaluation_ranks.sql").splitlines()[5].strip() in with_sql
    compiled = pyeval.core.compile.family("average_precision", frozenset({"AP"}))
    assert all(line in with_sql for line in compiled.splitlines())
    assert "bpref_term" not in compiled and "interpolated_precision" not in compiled  # other kinds' parts
    db = tmp_path / "w.duckdb"
    con = pyeval.connect(db)
    pyeval.load_qrels(con, "c", sample.path("qrels.adhoc.txt.gz"))
    pyeval.load_run(con, "c", pd.DataFrame({"query_id": ["151"], "doc_id": ["x"], "score": [1.0]}), name="r")
    con.close()
    before = db.read_bytes()
    resolved = runner.invoke(main, ["--db", str(db), "explain", "-C", "c", "-m", "map"])
    assert resolved.exit_code == 0 and "$runs = ['r']" in resolved.output and "$campaign_id = 'c'" in resolved.output
    assert db.read_bytes() == before  # read-only
    missing = runner.invoke(main, ["--db", str(db), "explain", "-C", "nosuch", "-m", "AP"])
    assert missing.exit_code == 1 and missing.output.startswith("Error: campaign 'nosuch' does not exist")
