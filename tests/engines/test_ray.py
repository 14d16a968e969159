"""Resampling sharded over Ray workers is bit for bit the single-process path, for any number of
shards, and reads the stored replicates (pyeval/engines/ray_engine.py).

One local Ray cluster (2 CPUs) for the module. Skipped only when ray cannot be imported."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval.errors import DataIntegrityError
from pyeval.resampling import discriminative_power, score_matrix
from pyeval.core import archive

from ..resampling.helpers import grid_matrix, store_matrix

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'pyeval[ray]')")

from pyeval.engines import ray_engine  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


@pytest.fixture(scope="module")
def cluster():
    ray_engine.init(workers=2)
    yield
    ray.shutdown()


def _warehouse(n: int = 14, m: int = 6):
    con = pyeval.connect()
    for i, measure in enumerate(MEASURES):
        store_matrix(con, grid_matrix(n, m, 11 + i), measure, evaluation_id=i + 1)
    return con


def _same(a, b) -> None:
    """Bit-identical results: tables, curves and every pairwise column (NaN equal to NaN)."""
    pd.testing.assert_frame_equal(a.table.drop(columns="test_id"), b.table.drop(columns="test_id"),
                                  check_exact=True)
    pd.testing.assert_frame_equal(a.curves, b.curves, check_exact=True)
    for name in a.results:
        left, right = a.results[name], b.results[name]
        pd.testing.assert_frame_equal(left.pairs, right.pairs, check_exact=True)
        assert left.delta == right.delta and left.hsd == right.hsd
        assert left.replicate_set_id == right.replicate_set_id
        assert left.settings.keys() == right.settings.keys()


@pytest.mark.parametrize("test,replicates", [("bootstrap", 400), ("tukey", 600), ("randomization", 3000),
                                             ("t", None)])
def test_sharded_results_are_bit_identical_for_any_worker_count(cluster, test, replicates):
    con = _warehouse()
    single = discriminative_power(con, "c", MEASURES, test, replicates=replicates, seed=3, store=False)
    for workers in (1, 2, 3, 4):
        sharded = ray_engine.discriminative_power(con, "c", MEASURES, test, replicates=replicates, seed=3,
                                                  store=False, workers=workers)
        _same(single, sharded)


def test_stored_replicates_are_read_and_the_same_rows_stored(cluster):
    reference, sharded = _warehouse(), _warehouse()
    first = discriminative_power(reference, "c", MEASURES, "bootstrap", replicates=300, seed=5)
    second = ray_engine.discriminative_power(sharded, "c", MEASURES, "bootstrap", replicates=300, seed=5,
                                             workers=3)
    _same(first, second)
    for table in ("resample_sets", "significance_tests", "pairwise_tests", "discriminative_power"):
        drop = "created_at" if table != "pairwise_tests" else None
        a = reference.sql(f"select * from {table}").df()
        b = sharded.sql(f"select * from {table}").df()
        for frame in (a, b):
            for column in [c for c in frame.columns if c in ("created_at", "tested_at", "computed_at", drop)]:
                del frame[column]
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    # a shard reads the stored replicates it is given (verified by their sha256, as in one process)
    matrix = score_matrix(sharded, "c", "AP")
    set_id = second.results["AP"].replicate_set_id
    rows = [ray_engine._replicate_rows(sharded, -1), ray_engine._replicate_rows(sharded, set_id)]
    assert ray_engine.run_shard([matrix], rows, "bootstrap", {"replicates": 300, "seed": 5})[0].replicate_set_id == set_id
    sharded.execute("update resample_replicates set draw = list_transform(draw, lambda x: 0) where replicate = 1")
    tampered = [ray_engine._replicate_rows(sharded, -1), ray_engine._replicate_rows(sharded, set_id)]
    with pytest.raises(DataIntegrityError, match="does not match its sha256"):
        ray_engine.run_shard([matrix], tampered, "bootstrap", {"replicates": 300, "seed": 5})


def test_shards_cover_every_measure_once():
    assert ray_engine.shards(list("abcde"), 2) == [[0, 2, 4], [1, 3]]
    assert ray_engine.shards(list("ab"), 8) == [[0], [1]]
    assert sorted(i for s in ray_engine.shards(list(range(7)), 3) for i in s) == list(range(7))


def test_cli_discpower_engine_ray(cluster, tmp_path):
    from click.testing import CliRunner

    from pyeval.cli import main

    path = tmp_path / "w.duckdb"
    con = pyeval.connect(str(path))
    for i, measure in enumerate(MEASURES[:2]):
        store_matrix(con, grid_matrix(10, 4, 21 + i), measure, evaluation_id=i + 1)
    expected = discriminative_power(con, "c", MEASURES[:2], "bootstrap", replicates=200, seed=0, store=False)
    con.close()
    result = CliRunner().invoke(main, ["--db", str(path), "discpower", "-C", "c", "-m", "AP", "-m", "nDCG@10",
                                       "-B", "200", "--engine", "ray", "--workers", "2", "--format", "csv"])
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(__import__("io").StringIO(result.stdout))
    assert printed["significant_pairs"].tolist() == expected.table["significant_pairs"].tolist()
    assert np.allclose(printed["share"], expected.table["share"])


def test_discpower_on_ray_reads_and_records_the_judgment_set(cluster):
    def with_second_set():
        con = _warehouse()
        con.execute("insert into judgment_sets (campaign_id, judgment_set, kind) values ('c', 'llm', 'llm')")
        for i, measure in enumerate(MEASURES[:2]):
            store_matrix(con, grid_matrix(14, 6, 31 + i), measure, evaluation_id=11 + i)
            for table in ("evaluations", "topic_scores"):
                con.execute(f"update {table} set judgment_set = 'llm' where evaluation_id = $e", {"e": 11 + i})
        archive.refresh(con, "c")  # rows changed by hand: the maintained current values follow (docs/schema.md)
        return con

    reference, sharded = with_second_set(), with_second_set()
    first = discriminative_power(reference, "c", MEASURES[:2], "t", judgment_set="llm")
    second = ray_engine.discriminative_power(sharded, "c", MEASURES[:2], "t", workers=2, judgment_set="llm")
    _same(first, second)
    official = ray_engine.discriminative_power(sharded, "c", MEASURES[:2], "t", workers=2)
    assert not official.curves.equals(second.curves)
    assert sharded.execute("select discpower_id, list(distinct judgment_set) from discriminative_power group by 1 "
                           "order by 1").fetchall() == [(1, ["llm"]), (2, ["official"])]
    assert sharded.execute("select judgment_set from significance_tests order by test_id").fetchall() == [
        ("llm",), ("llm",), ("official",), ("official",)]
