"""Each option's domain is declared once and checked before any work (issue 32, "Tracebacks
instead of one line"): a seed below 0, a billion-billion resamples, nan or inf, and a --runs
that names no run are refused in one line, and nothing is stored."""
from __future__ import annotations

import pytest

import pyeval

from ..resampling.helpers import grid_matrix, store_matrix
from .helpers import cli, one_line_error


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    path = tmp_path_factory.mktemp("domains") / "w.duckdb"
    con = pyeval.connect(path)
    store_matrix(con, grid_matrix(12, 5, 7), "AP", evaluation_id=1)
    con.close()
    return path


@pytest.mark.parametrize("args", [
    ["significance", "-C", "c", "-m", "AP", "--seed", "-1"],
    ["significance", "-C", "c", "-m", "AP", "-B", "1000000000000"],
    ["significance", "-C", "c", "-m", "AP", "--test", "sign", "--tau", "nan"],
    ["significance", "-C", "c", "-m", "AP", "--alpha", "nan"],
    ["significance", "-C", "c", "-m", "AP", "--alpha", "1.5"],
    ["significance", "-C", "c", "-m", "AP", "--runs", ",,,"],
    ["discpower", "-C", "c", "-m", "AP", "--seed", "-1"],
    ["swaprate", "-C", "c", "-m", "AP", "--bin-width", "nan"],
    ["swaprate", "-C", "c", "-m", "AP", "--bin-width", "inf"],
    ["swaprate", "-C", "c", "-m", "AP", "--trials", "1000000000000"],
    ["stability", "-C", "c", "-m", "AP", "--fuzziness", "0.1,nan"],
    ["correlate", "-C", "c", "-m", "AP", "-m", "AP", "--seed", "-5"],
    ["mem", "-C", "c", "-m", "AP", "--beta", "nan"],
    ["evaluate", "-C", "c", "-m", "AP", "--runs", ",,,"],
])
def test_an_option_outside_its_domain_is_one_line_and_stores_nothing(scored, args):
    con = pyeval.connect(scored, read_only=True)
    before = con.execute("select (select count(*) from significance_tests), (select count(*) from resample_sets), "
                         "(select count(*) from evaluations)").fetchall()
    con.close()
    status, output = cli("--db", scored, *args)
    assert status == 2 and "Traceback" not in output, output
    line = one_line_error(output)
    assert "Invalid value" in line, line
    con = pyeval.connect(scored, read_only=True)
    assert con.execute("select (select count(*) from significance_tests), (select count(*) from resample_sets), "
                       "(select count(*) from evaluations)").fetchall() == before
    con.close()
