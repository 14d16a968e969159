"""The resampling stage sharded over Ray workers (``pyeval discpower --engine ray``).

Discriminative power runs one significance test per measure, each over every run pair, on the
measure's topic x run matrix and the campaign's shared replicates. Here the driver reads the
matrices and obtains (reads, or draws and stores) the replicate sets exactly as the
single-process path does; the measures are dealt round-robin into ``workers`` shards, and each
shard is one Ray task that runs the unchanged :func:`pyeval.resampling.test_matrix` on its
measures, reading the stored replicates from a copy of their rows (verified by their sha256,
as on the driver). The driver stores the results with the single-process code.

Every test of a measure is thus the same function call on the same inputs as in one process,
so p-values, statistics, Δ and ASL curves are bit for bit the single-process ones, for any
number of shards or workers (tests/engines/test_ray.py compares them with ``==``). The Ray
workers are told to use one BLAS thread, like the ``numpy`` path's matrix products are checked
against (a different thread count could change the last bit of a sum).

Needs ``pip install 'pyeval[ray]'``. ``address``: a running Ray cluster (``ray://...`` or
``auto``); default a local one with ``workers`` CPUs, started on first use.
"""
from __future__ import annotations

from collections.abc import Sequence

import duckdb

from ..vocabulary import significance_test
from ..errors import PyevalError, with_command_line
from pyeval.core.db import default_judgment_set, stores_in_one_transaction
from ..resampling import replicates as rep
from ..resampling.discpower import DiscriminativePower, finish
from ..resampling.matrix import ScoreMatrix, canonical_measure, score_matrix
from ..resampling.significance import (
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    SignificanceResult,
    choose_runs,
    store_result,
    test_matrix,
)



def _ray():
    try:
        import ray
    except ImportError as exc:
        raise PyevalError("the Ray engine needs ray: pip install 'pyeval[ray]'") from exc
    return ray


def init(workers: int | None = None, address: str | None = None):
    """Connect to ``address``, or start a local Ray cluster with ``workers`` CPUs (once)."""
    ray = _ray()
    if not ray.is_initialized():
        options = dict(include_dashboard=False, log_to_driver=False, configure_logging=False,
                       runtime_env={"env_vars": {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                                 "MKL_NUM_THREADS": "1"}})
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=workers, **options)
    return ray


def _replicate_rows(con, set_id: int) -> tuple:
    """The stored rows of one replicate set (resample_sets, resample_replicates) as Arrow."""
    sets = con.sql("select * from resample_sets where replicate_set_id = $id", params={"id": set_id}).to_arrow_table()
    rows = con.sql("select * from resample_replicates where replicate_set_id = $id",
                   params={"id": set_id}).to_arrow_table()
    return sets, rows


def _replicate_store(stored: Sequence[tuple]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB holding copies of stored replicate sets, for rep.obtain to read."""
    worker = duckdb.connect()
    for i, (sets, rows) in enumerate(stored):
        worker.register("new_sets", sets)
        worker.register("new_rows", rows)
        if i == 0:
            worker.execute("create table resample_sets as select * from new_sets")
            worker.execute("create table resample_replicates as select * from new_rows")
        else:
            worker.execute("insert into resample_sets select * from new_sets")
            worker.execute("insert into resample_replicates select * from new_rows")
        worker.unregister("new_sets")
        worker.unregister("new_rows")
    return worker


def run_shard(matrices: Sequence[ScoreMatrix], stored: Sequence[tuple], test: str,
              options: dict) -> list[SignificanceResult]:
    """One shard: :func:`test_matrix` on each matrix, the replicates read from ``stored``."""
    worker = _replicate_store(stored)
    try:
        return [test_matrix(matrix, test, con=worker, store_replicates=False, **options) for matrix in matrices]
    finally:
        worker.close()


def shards(items: Sequence, count: int) -> list[list[int]]:
    """Positions of ``items`` dealt round-robin into ``count`` non-empty shards."""
    count = max(1, min(count, len(items)))
    return [list(range(i, len(items), count)) for i in range(count)]


@stores_in_one_transaction
@default_judgment_set()
def discriminative_power(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    test: str = "bootstrap",
    *,
    alpha: float = 0.05,
    runs: Sequence[str] | None = None,
    runs_sample: int | None = None,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    store: bool = True,
    workers: int | None = None,
    address: str | None = None,
    judgment_set: str | None = None,
    **options,
) -> DiscriminativePower:
    """:func:`pyeval.resampling.discriminative_power` with the measures' tests run as Ray
    tasks (``workers`` shards, default the cluster's CPUs); the same result, bit for bit, and
    the same rows stored."""
    if not measures:
        raise with_command_line(PyevalError("no measure requested (measures=['AP', 'nDCG@10'], say)"),
                                "no measure requested (e.g. -m AP -m nDCG@10)")
    ray = init(workers, address)
    names = list(dict.fromkeys(canonical_measure(m) for m in measures))
    chosen = choose_runs(con, campaign_id, names, runs, runs_sample, seed, judgment_set)
    matrices = [score_matrix(con, campaign_id, name, chosen, judgment_set) for name in names]
    traits = significance_test(test)  # the replicate kind it draws (None: closed form, nothing drawn)
    B = replicates or traits.default_b
    kind = traits.replicates
    stored_sets: dict[int, tuple] = {-1: _replicate_rows(con, -1)}  # the tables' columns, no rows
    for matrix in matrices:
        if kind is None or (kind == "signflip" and 2 ** len(matrix.topic_ids) <= B):
            continue
        # the set the single-process path would read or draw (and store), obtained once here
        found = rep.obtain(con, kind, campaign_id, matrix.topic_ids, B, seed,
                           len(matrix.run_ids) if kind == "permutation" else None, store=store)
        if found.replicate_set_id is not None and found.replicate_set_id not in stored_sets:
            stored_sets[found.replicate_set_id] = _replicate_rows(con, found.replicate_set_id)
    test_options = dict(replicates=replicates, seed=seed, alpha=alpha, **options)
    count = workers or int(ray.cluster_resources().get("CPU", 1))
    remote = ray.remote(num_cpus=1)(run_shard)
    stored_ref = ray.put(list(stored_sets.values()))
    plan = shards(matrices, count)
    futures = [remote.remote([matrices[i] for i in shard], stored_ref, test, test_options) for shard in plan]
    results: list[SignificanceResult | None] = [None] * len(matrices)
    for shard, shard_results in zip(plan, ray.get(futures)):
        for i, result in zip(shard, shard_results):
            results[i] = result
    by_name: dict[str, SignificanceResult] = {}
    for name, result in zip(names, results):
        if runs_sample:
            result.settings["runs_sample"] = runs_sample
        if store:
            result.test_id = store_result(con, result)
        by_name[name] = result
    return finish(con, campaign_id, test, alpha, by_name, store)
