"""Every result the Python API returns shows itself (pyeval/display.py): ``print``/``repr`` give
the table its command prints with the summary below, a notebook gets an escaped, bounded HTML
table (``_repr_html_``), and ``df()``/``to_pandas()`` give its main table."""
from __future__ import annotations

import re
import shutil
from html import escape as html_escape
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import pyeval
from pyeval import fusion, judgments, pools
from pyeval import resampling as rs
from pyeval.cli import main
from pyeval.display import Displayed
from pyeval.output import html_table

#: A run name that HTML must escape.
ODD = "run<9>&"
RUNS = [f"run{j}" for j in range(9)] + [ODD]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """Campaign 'r': 8 topics, 10 runs (one named with HTML's special characters), official and
    stricter judgments, AP, nDCG@10 and P@10 stored, a pool; stored in a file for the CLI."""
    path = tmp_path_factory.mktemp("display") / "w.duckdb"
    con = pyeval.connect(path)
    rng = np.random.default_rng(5)
    qrels = pd.DataFrame([(f"q{t}", f"d{t}-{d}", int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])))
                          for t in range(8) for d in range(30)], columns=["query_id", "doc_id", "relevance"])
    pyeval.load_qrels(con, "r", qrels)
    pyeval.load_qrels(con, "r", qrels.assign(relevance=(qrels["relevance"] >= 2).astype(int)), judgment_set="strict")
    for j, name in enumerate(RUNS):
        rows = [(f"q{t}", f"d{t}-{d}", 15 - i + j * 0.01) for t in range(8)
                for i, d in enumerate(rng.permutation(30)[:15])]
        pyeval.load_run(con, "r", pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), name=name)
    pyeval.evaluate(con, "r", ["AP", "nDCG@10", "P@10"])
    pools.build(con, "r", "p", depth=5, runs=RUNS[:5])
    yield con, path
    con.close()


def _grid(con):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fusion.OverfittingWarning)
        return fusion.evaluate_grid(con, "r", fusion.Recipe("rrf", ("run0", "run1")), ["k=5,60"], store=False)


def _repro():
    from pyeval import repro

    return repro


def _longitudinal(con):
    """Systems bm25 (run0, run1) and other (run2, run3) at snapshots s1 and s2, bm25 the pivot."""
    repro = _repro()
    for run, system, snapshot, pivot in (("run0", "bm25", "s1", "run0"), ("run1", "bm25", "s2", "run1"),
                                         ("run2", "other", "s1", "run0"), ("run3", "other", "s2", "run1")):
        repro.record_snapshot(con, "r", run, system, snapshot, pivot_run_id=pivot)
    return repro.longitudinal(con, "r", "bm25", ["AP"], store=False)


#: Each result the API returns: how to make it, and the attribute its df() is.
RESULTS = {
    "evaluation": (lambda con: pyeval.evaluate(con, "r", ["AP", "P@10", "NumRet"], store=False), "means"),
    "significance": (lambda con: rs.significance(con, "r", "AP", "t", store=False), "pairs"),
    "pairwise": (lambda con: rs.paired_bootstrap([0.1, 0.4, 0.3], [0.2, 0.1, 0.0], replicates=50), "pairs"),
    "discriminative power": (lambda con: rs.discriminative_power(con, "r", ["AP", "P@10"], "t", store=False),
                             "table"),
    "swap rates": (lambda con: rs.swap_rate(con, "r", ["AP"], trials=20, store=False), "summary"),
    "stability": (lambda con: rs.stability(con, "r", ["AP"], trials=20, store=False), "table"),
    "correlation": (lambda con: rs.correlate(con, "r", ["AP", "nDCG@10"], test=None, store=False), "table"),
    "concordance": (lambda con: rs.concordance(con, "r", ["AP", "nDCG@10"], ["P@10"], store=False), "table"),
    "robustness": (lambda con: rs.gain_robustness(con, "r", ["nDCG@10"], profiles=["flat"], store=False), "table"),
    "mem": (lambda con: rs.informativeness(con, "r", ["AP"], depth=5, runs_top=3, topics_top=3, store=False),
            "predictions"),
    "risk": (lambda con: rs.risk(con, "r", ["AP"], ["run0"], [1.0], store=False), "table"),
    "design": (lambda con: rs.topic_set_design(con, "r", ["AP"], store=False), "table"),
    "judgments": (lambda con: judgments.compare(con, "r", "official", ["strict"], ["AP"], store=False), None),
    "leave out": (lambda con: pools.leave_out(con, "r", "p", ["AP"], store=False), "table"),
    "fusion grid": (_grid, "points"),
    "repro": (lambda con: _repro().reproduce(con, "r", "run0", "run1", "run2", "run3", ["AP"], store=False), "results"),
    "longitudinal": (lambda con: _longitudinal(con), "rows"),
}


@pytest.mark.parametrize("kind", RESULTS)
def test_every_result_prints_its_table_shows_html_and_gives_a_frame(warehouse, kind):
    con, _ = warehouse
    make, attribute = RESULTS[kind]
    result = make(con)
    assert isinstance(result, Displayed)
    frame = result.df()
    assert isinstance(frame, pd.DataFrame) and len(frame)
    assert result.to_pandas() is frame or result.to_pandas().equals(frame)
    if attribute is not None:
        assert frame is getattr(result, attribute)
    text = result.render()
    assert repr(result) == str(result) == text
    assert "(" not in text.splitlines()[0] or "=" not in text.splitlines()[0]  # a table, not a dataclass repr
    assert not text.startswith(type(result).__name__ + "(")
    shown = result._display_frame()
    for column in shown.columns:
        assert str(column) in text.splitlines()[0]
    html = result._repr_html_()
    assert html.startswith('<table class="dataframe pyeval">')
    assert html.count("<tr>") == min(len(shown), 40) + 1
    assert "<script" not in html and ODD not in html  # every text escaped


def test_the_odd_run_name_is_escaped_in_html(warehouse):
    con, _ = warehouse
    result = rs.significance(con, "r", "AP", "t", store=False)
    html = result._repr_html_()
    assert "run&lt;9&gt;&amp;" in html and ODD not in html
    assert ODD in str(result)


def test_a_large_result_shows_its_first_rows_and_counts_the_others(warehouse):
    con, _ = warehouse
    result = rs.significance(con, "r", "AP", "t", store=False)  # 45 pairs
    html = result._repr_html_()
    assert html.count("<tr>") == 41 and "… 5 more rows (all 45 in <code>.df()</code>)" in html
    small = html_table(pd.DataFrame({"x": range(10)}), max_rows=3)
    assert small.count("<tr>") == 4 and "7 more rows" in small


def test_the_printed_table_is_what_the_command_prints(warehouse, tmp_path):
    con, stored = warehouse
    result = rs.significance(con, "r", "AP", "t", store=False)
    con.execute("checkpoint")
    path = tmp_path / "copy.duckdb"  # DuckDB opens a file once per process: the command reads a copy
    shutil.copyfile(stored, path)
    cli = CliRunner().invoke(main, ["--db", str(path), "significance", "-C", "r", "-m", "AP",
                                                "--test", "t", "--no-store"])
    assert cli.exit_code == 0, cli.output
    assert cli.stdout.strip() == result.render(note=False)
    assert result.summary() in cli.stderr and result.summary() in str(result)
    assert result.render("csv") == cli_csv(path)


def cli_csv(path) -> str:
    cli = CliRunner().invoke(main, ["--db", str(path), "significance", "-C", "r", "-m", "AP",
                                                "--test", "t", "--no-store", "--format", "csv"])
    return cli.stdout.strip()


def test_a_p_value_below_the_resolution_prints_as_a_bound_in_html():
    frame = pd.DataFrame({"run_a": ["a"], "p": [1e-9], "wins": [3.0]})
    html = html_table(frame, integer_columns=("wins",), p_resolution=0.001)
    assert "&lt; 0.001" in html and ">3<" in html


def test_the_comparison_report_shows_its_marks_in_html(warehouse):
    con, _ = warehouse
    report = rs.compare(con, "r", ["AP", "nDCG@10"], test="t", store=False)
    assert str(report) == repr(report) == report.render()
    assert report.render().startswith("| run | AP | nDCG@10 |")
    html = report._repr_html_()
    assert html.count("<b>") == 2  # the best mean of each column
    assert "run&lt;9&gt;&amp;" in html and ODD not in html
    assert html_escape(report.legend()) in html
    marks = re.findall(r"<sup>([a-z]+)</sup>", report.render())
    assert marks == re.findall(r"<sup>([a-z]+)</sup>", html)
    assert list(report.df().columns) == ["AP", "nDCG@10"] and list(report.df().index) == list(report.means.index)


def test_a_result_that_cannot_render_still_has_a_repr():
    class Broken(Displayed):
        def df(self):
            raise RuntimeError("no table")

    assert repr(Broken()).startswith("<") and "Broken" in repr(Broken())
