"""Every command's writes are one transaction (issue 32, "A failed store leaves rows behind"):
a store that fails part-way (a full disk) leaves the warehouse as it was."""
from __future__ import annotations

import importlib

import duckdb
import pytest

import pyeval

from ..resampling.helpers import grid_matrix, store_matrix

STORED = ("resample_sets", "resample_replicates", "significance_tests", "pairwise_tests",
          "discriminative_power")


def _counts(con) -> dict[str, int]:
    return {table: con.execute(f"select count(*) from {table}").fetchall()[0][0] for table in STORED}


@pytest.fixture
def scored(tmp_path):
    con = pyeval.connect(tmp_path / "w.duckdb")
    store_matrix(con, grid_matrix(12, 5, 7), "AP", evaluation_id=1)
    yield con
    con.close()


def _full_disk(*args, **kwargs):
    raise duckdb.IOException('IO Error: Could not write file "w.duckdb.wal": No space left on device')


@pytest.mark.parametrize("module, store, call", [
    ("significance", "store_result",
     lambda con: pyeval.resampling.significance(con, "c", "AP", "bootstrap", replicates=200)),
    ("discpower", "_store",
     lambda con: pyeval.resampling.discriminative_power(con, "c", ["AP"], "bootstrap", replicates=200)),
])
def test_a_failed_store_leaves_no_replicates_behind(scored, monkeypatch, module, store, call):
    """The replicate set was committed on its own before the test's rows failed to store."""
    before = _counts(scored)
    monkeypatch.setattr(importlib.import_module(f"pyeval.resampling.{module}"), store, _full_disk)
    with pytest.raises(duckdb.IOException, match="No space left"):
        call(scored)
    assert _counts(scored) == before
    monkeypatch.undo()
    call(scored)  # and the same call, when it can store, stores everything
    after = _counts(scored)
    assert after["resample_sets"] == 1 and after["significance_tests"] >= 1
