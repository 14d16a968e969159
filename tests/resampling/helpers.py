"""Shared helpers of the resampling tests: generated score matrices and warehouses holding them."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import pyeval
from pyeval.core import archive

SAKAI_BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "sakai-book"


def sakai_book() -> np.ndarray:
    """Sakai (2015) Table 5.1: 20 topics x systems A, B, C (X, Y, Z.csv) on a 0.01 grid."""
    return np.column_stack([pd.read_csv(SAKAI_BOOK / f"{name}.csv")["ndcg@5"].to_numpy() for name in "XYZ"])


def grid_matrix(n: int, m: int, seed: int, step: float = 0.1) -> np.ndarray:
    """n x m scores on a grid of ``step`` (many exact ties), runs of different quality."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0.2, 0.6, m)
    values = np.clip(quality[None, :] + rng.normal(0, 0.25, (n, m)), 0, 1)
    return np.round(np.round(values / step) * step, 10)


def store_matrix(con, X: np.ndarray, measure: str = "AP", campaign: str = "c", evaluation_id: int = 1,
                 runs: list[str] | None = None, topics: list[str] | None = None) -> None:
    """Store X as the per-topic values of ``measure`` (one evaluation), creating campaign and runs."""
    n, m = X.shape
    runs = runs or [f"run{j:02d}" for j in range(m)]
    topics = topics or [f"{t:03d}" for t in range(n)]
    if not con.execute("select 1 from campaigns where campaign_id = $c", {"c": campaign}).fetchall():
        con.execute("insert into campaigns (campaign_id, qrels_kind) values ($c, 'adhoc')", {"c": campaign})
    for run in runs:
        if not con.execute("select 1 from runs where campaign_id = $c and run_id = $r",
                           {"c": campaign, "r": run}).fetchall():
            con.execute("insert into runs (campaign_id, run_id, source_file, source_sha256) values ($c, $r, '-', '')",
                        {"c": campaign, "r": run})
    con.execute("insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering) "
                "values ($e, $c, 'test', 'trec')", {"e": evaluation_id, "c": campaign})
    frame = pd.DataFrame({"run_id": [r for r in runs for _ in topics], "topic_id": topics * m,
                          "value": X.T.ravel()})
    con.register("new_values", frame)
    con.execute("insert into topic_scores (evaluation_id, campaign_id, run_id, topic_id, measure, value) "
                "select $e, $c, run_id, topic_id, $m, value from new_values",
                {"e": evaluation_id, "c": campaign, "m": measure})
    con.unregister("new_values")
    # what pyeval's own store does in the evaluation's transaction: the view scores reads the
    # maintained current values (pyeval/core/archive.py)
    archive.record_evaluation(con, evaluation_id)


def scored_warehouse(n: int = 12, m: int = 6, seed: int = 7):
    """An in-memory warehouse with campaign 'c': m runs x n topics of AP and nDCG@10."""
    con = pyeval.connect()
    store_matrix(con, grid_matrix(n, m, seed), "AP", evaluation_id=1)
    store_matrix(con, grid_matrix(n, m, seed + 1), "nDCG@10", evaluation_id=2)
    return con
