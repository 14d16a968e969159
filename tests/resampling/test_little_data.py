"""Meta-evaluation on too little data says so: fewer than 3 runs, no comparison reaching the
required difference, no disagreement. The warnings are issued and stored with the result
(migration 0009_metaeval_warnings)."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.resampling.concordance import concordance
from pyeval.resampling.correlation import correlate
from pyeval.resampling.discpower import discriminative_power
from pyeval.resampling.store import LittleDataWarning
from pyeval.resampling.swaprate import swap_rate

from .helpers import grid_matrix, scored_warehouse, store_matrix


def _stored(con, table: str, id_column: str, identifier: int) -> list:
    rows = con.execute(f"select warnings from {table} where {id_column} = $id", {"id": identifier}).fetchall()
    return [list(row[0]) for row in rows]


def test_two_runs_warn_and_the_warning_is_stored():
    con = scored_warehouse(n=12, m=2)
    with pytest.warns(LittleDataWarning, match=r"only 2 runs \(1 run pair\)"):
        swaps = swap_rate(con, "c", ["AP"], trials=50)
    notes = _stored(con, "swap_rate_summaries", "swaprate_id", swaps.swaprate_id)[0]
    assert notes[0].startswith("only 2 runs") and notes == swaps.summary["warnings"][0]
    with pytest.warns(LittleDataWarning, match="only 2 runs"):
        corr = correlate(con, "c", ["AP", "nDCG@10"], test=None)
    assert abs(corr.table["tau"][0]) == 1.0
    assert _stored(con, "rank_correlations", "correlation_id", corr.correlation_id)[0][0].startswith("only 2 runs")
    with pytest.warns(LittleDataWarning, match="only 2 runs"):
        power = discriminative_power(con, "c", ["AP"], replicates=50)
    assert _stored(con, "discriminative_power", "discpower_id", power.discpower_id)[0][0].startswith("only 2 runs")


def test_no_comparison_reaching_the_required_difference_is_said():
    con = pyeval.connect()
    # three runs that differ by noise only: every difference falls in the first bin, where they
    # swap half of the time, so the read-off is the empty bin above it
    rng = np.random.default_rng(1)
    X = 0.3 + rng.normal(0, 0.001, (20, 3))
    store_matrix(con, X, "AP")
    with pytest.warns(LittleDataWarning, match="none of the .* comparisons reaches the required difference"):
        result = swap_rate(con, "c", ["AP"], trials=40)
    assert result.summary["required_difference"][0] == pytest.approx(0.01)
    assert result.summary["comparisons_reaching"][0] == 0
    assert any("reaches" in note for note in _stored(con, "swap_rate_summaries", "swaprate_id", result.swaprate_id)[0])


def test_enough_runs_store_an_empty_list(recwarn):
    con = scored_warehouse(n=12, m=6)
    corr = correlate(con, "c", ["AP", "nDCG@10"], test=None)
    assert not [w for w in recwarn if issubclass(w.category, LittleDataWarning)]
    assert _stored(con, "rank_correlations", "correlation_id", corr.correlation_id) == [[]]


def test_measures_that_never_disagree_have_nothing_to_test():
    con = pyeval.connect()
    X = grid_matrix(10, 4, 3)
    store_matrix(con, X, "AP", evaluation_id=1)
    store_matrix(con, X * 0.5, "P@10", evaluation_id=2)
    store_matrix(con, grid_matrix(10, 4, 4), "RR", evaluation_id=3)
    with pytest.warns(LittleDataWarning, match="never disagree"):
        result = concordance(con, "c", ["AP", "P@10"], "RR")
    assert "never disagree" in _stored(con, "concordance_tests", "concordance_id", result.concordance_id)[0][0]


def test_the_cli_prints_the_warnings(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    store_matrix(con, grid_matrix(12, 2, 1), "AP", evaluation_id=1)
    store_matrix(con, grid_matrix(12, 2, 2), "nDCG@10", evaluation_id=2)
    con.close()
    result = CliRunner().invoke(main, ["--db", str(path), "correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10",
                                       "--test", "none"])
    assert result.exit_code == 0, result.output
    assert "warning: only 2 runs (1 run pair)" in result.output
