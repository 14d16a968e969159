"""Per-topic scores of stored runs for `pyeval repro` and `pyeval longitudinal`: read from the
warehouse (view ``scores_by_set``), evaluated first where a run lacks a measure
(:func:`pyeval.evaluate`; stored unless ``store`` is False)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import check_judgment_set, judgment_set_or_default
from ..errors import PyevalError


@dataclass(frozen=True)
class TopicScores:
    """``table``: the per-topic values of one campaign's runs under one judgment set, topics as
    rows (sorted), (run, measure) as columns; ``evaluation_ids``: the evaluations that stored them."""

    campaign_id: str
    judgment_set: str
    table: pd.DataFrame
    evaluation_ids: tuple[int, ...]

    def matrix(self, runs: Sequence[str], measure: str) -> tuple[list[str], np.ndarray]:
        """The topics any of ``runs`` has a value for (sorted) and a topic x run array of
        ``measure``, a missing value filled with 0 (trec_eval -c; docs/meta-evaluation.md 0)."""
        columns = pd.MultiIndex.from_tuples([(run, measure) for run in runs])
        values = self.table.reindex(columns=columns).to_numpy(dtype=float, na_value=np.nan)
        present = ~np.isnan(values).all(axis=1)
        values = values[present]
        return list(self.table.index[present]), np.where(np.isfinite(values), values, 0.0)


def require_runs(con: duckdb.DuckDBPyConnection, campaign_id: str, runs: Sequence[str]) -> None:
    """One-line errors for an unknown campaign or run."""
    from pyeval.core.db import unknown_campaign

    runs = list(dict.fromkeys(runs))
    known = {r for r, in con.execute("select run_id from runs where campaign_id = $c and list_contains($runs, run_id)",
                                     {"c": campaign_id, "runs": runs}).fetchall()}
    if len(known) < len(runs) and not con.execute("select count(*) from campaigns where campaign_id = $c",
                                                  {"c": campaign_id}).fetchone()[0]:
        raise unknown_campaign(con, campaign_id)
    unknown = [run for run in runs if run not in known]
    if unknown:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, unknown))}")


def topic_scores(con: duckdb.DuckDBPyConnection, campaign_id: str, runs: Sequence[str], measures: Sequence[str],
                 judgment_set: str | None = None, *, store: bool = True) -> TopicScores:
    """The per-topic scores of ``measures`` (canonical names) for ``runs`` of ``campaign_id``
    under ``judgment_set`` (default: the campaign's default set); what is not stored is
    evaluated now (stored unless ``store`` is False)."""
    from pyeval.core.evaluation import evaluate

    runs = list(dict.fromkeys(runs))
    require_runs(con, campaign_id, runs)
    judgment_set = judgment_set_or_default(con, campaign_id, judgment_set)
    check_judgment_set(con, campaign_id, judgment_set)
    keys = {"c": campaign_id, "s": judgment_set, "runs": runs, "measures": list(measures)}
    stored = con.execute(
        "select run_id, measure, topic_id, value, evaluation_id from scores_by_set where campaign_id = $c "
        "and judgment_set = $s and list_contains($runs, run_id) and list_contains($measures, measure)", keys).df()
    have = set(zip(stored["run_id"], stored["measure"]))
    missing_measures = [m for m in measures if any((run, m) not in have for run in runs)]
    missing_runs = [r for r in runs if any((r, m) not in have for m in measures)]
    evaluation_ids = set(int(e) for e in stored["evaluation_id"].dropna().unique())
    stored = stored.drop(columns=["evaluation_id"])
    if missing_measures:
        result = evaluate(con, campaign_id, missing_measures, runs=missing_runs, store=store,
                          judgment_set=judgment_set)
        fresh = result.per_topic[["run_id", "measure", "topic_id", "value"]]
        stored = stored[~stored.set_index(["run_id", "measure"]).index.isin(
            pd.MultiIndex.from_frame(fresh[["run_id", "measure"]].drop_duplicates()))]
        stored = pd.concat([stored, fresh], ignore_index=True)
        if result.evaluation_id is not None:
            evaluation_ids.add(int(result.evaluation_id))
    table = (stored.astype({"value": float}).set_index(["topic_id", "run_id", "measure"])["value"]
             .unstack(["run_id", "measure"]).sort_index())
    return TopicScores(campaign_id, judgment_set, table, tuple(sorted(evaluation_ids)))
