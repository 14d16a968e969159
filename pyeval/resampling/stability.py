"""Minority rate and proportion of ties (Buckley & Voorhees SIGIR 2000, as in Sakai AIRS 2005
Fig. 1; docs/meta-evaluation.md section 7; Sakai, AIRS 2005 Figs 3-4 and Table 1).

T topic subsets Q_t of size c (without replacement) are drawn once and shared by every run pair,
measure and fuzziness (a replicate set of kind ``subset``). For each pair (x, y) and trial,
a = M(x, Q_t), b = M(y, Q_t), margin = f · max(a, b) (``fuzz='relative'``, the Buckley-Voorhees
rule; ``'absolute'``: margin = f):

- |a − b| < margin (tolerance-aware): a tie, EQ(x, y);
- otherwise a > b: GT(x, y); a < b: GT(y, x).

MR = Σ_pairs min(GT(x,y), GT(y,x)) / (T · pairs); PT = Σ_pairs EQ(x,y) / (T · pairs).
Exactly equal means (within the tolerance) are ties even when the margin is 0 (f = 0 or both
means 0); ``strict_bv_rule=True`` counts them as GT(y, x), the literal rule.
All fuzziness values, trials and pairs are one array operation per chunk of trials.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import default_judgment_set, stores_in_one_transaction
from ..display import Displayed
from ..errors import PyevalError, require_choice
from . import replicates as rep
from .significance import DEFAULT_SEED
from .stats import TOLERANCE, pair_indices
from .store import (
    insert_experiment,
    measure_matrices,
    measure_names,
    pyplot,
    save_figure,
)
from .swaprate import subset_size_iv

TABLE = "minority_rates"
DEFAULT_FUZZINESS = tuple(round(0.01 * k, 2) for k in range(1, 21))
FUZZ = ("relative", "absolute")
TRIAL_CHUNK = 100


def stability_counts(X: np.ndarray, draws: np.ndarray, fuzziness: Sequence[float], *, fuzz: str = "relative",
                     strict_bv_rule: bool = False, chunk: int = TRIAL_CHUNK) -> pd.DataFrame:
    """Per fuzziness f: pairs, comparisons, minority (Σ min(GT(x,y), GT(y,x))), ties, minority_rate
    and proportion_of_ties, for X (topics x runs) and the T x c subset draws."""
    if fuzz not in FUZZ:
        raise ValueError(f"fuzz must be one of {', '.join(FUZZ)}; got {fuzz!r}")
    X = np.asarray(X, dtype=float)
    f = np.asarray(fuzziness, dtype=float)[:, None, None]
    a_idx, b_idx = pair_indices(X.shape[1])
    pairs = len(a_idx)
    scale = max(1.0, float(np.abs(X).max(initial=0.0)))
    greater = np.zeros((len(f), pairs), dtype=np.int64)
    less = np.zeros((len(f), pairs), dtype=np.int64)
    ties = np.zeros((len(f), pairs), dtype=np.int64)
    for start in range(0, draws.shape[0], chunk):
        means = X[draws[start:start + chunk]].mean(axis=1)  # chunk x m
        a, b = means[:, a_idx][None], means[:, b_idx][None]  # 1 x chunk x P
        diff = a - b
        margin = f * np.maximum(a, b) if fuzz == "relative" else f
        tol = TOLERANCE * scale
        equal = np.abs(diff) <= tol
        tie = np.abs(diff) < margin - tol
        if not strict_bv_rule:
            tie = tie | equal
        gt = ~tie & (diff > tol)
        lt = ~tie & ~gt  # includes exact equality under the literal rule
        greater += gt.sum(axis=1)
        less += lt.sum(axis=1)
        ties += tie.sum(axis=1)
    comparisons = draws.shape[0] * pairs
    minority = np.minimum(greater, less).sum(axis=1)
    tied = ties.sum(axis=1)
    return pd.DataFrame({"fuzziness": np.asarray(fuzziness, dtype=float), "pairs": pairs, "comparisons": comparisons,
                         "minority": minority, "ties": tied, "minority_rate": minority / comparisons,
                         "proportion_of_ties": tied / comparisons})


@dataclass(repr=False)
class Stability(Displayed):
    """``table``: measure, fuzziness, minority, ties, minority_rate, proportion_of_ties."""

    campaign_id: str
    table: pd.DataFrame
    settings: dict = field(default_factory=dict)
    stability_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure and fuzziness."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table[["measure", "fuzziness", "minority_rate", "proportion_of_ties"]]

    def _display_note(self) -> str:
        return self.summary(0.05) + (f"\nstored as stability experiment {self.stability_id}" if self.stability_id is not None else "")

    def at_minority_rate(self, level: float = 0.05) -> pd.DataFrame:
        """Per measure, the smallest proportion of ties among fuzziness values with MR ≤ level
        (slicing the MR/PT curves, Sakai, AIRS 2005 Table 1); null when no f reaches it."""
        rows = []
        for measure, group in self.table.groupby("measure", sort=False):
            ok = group[group["minority_rate"] <= level]
            best = ok.sort_values(["proportion_of_ties", "fuzziness"]).head(1)
            rows.append({"measure": measure,
                         "fuzziness": float(best["fuzziness"].iloc[0]) if len(best) else None,
                         "proportion_of_ties": float(best["proportion_of_ties"].iloc[0]) if len(best) else None,
                         "minority_rate": float(best["minority_rate"].iloc[0]) if len(best) else None})
        return pd.DataFrame(rows)

    def summary(self, level: float = 0.05) -> str:
        """One line: the setting and each measure's proportion of ties at MR = ``level``."""
        s = self.settings
        parts = []
        for row in self.at_minority_rate(level).itertuples(index=False):
            reached = row.proportion_of_ties is not None and not pd.isna(row.proportion_of_ties)
            parts.append(f"{row.measure}: " + (f"{row.proportion_of_ties:.4f} (f = {row.fuzziness:g})" if reached else "-"))
        return (f"{self.campaign_id}: {s.get('runs')} runs, c = {s.get('subset_size')} of {s.get('topic_count')} topics, "
                f"{s.get('trials')} subsets, seed {s.get('seed')}; proportion of ties at {level:.0%} minority rate: "
                + "; ".join(parts))

    def plot(self, path, title: str | None = None, dpi: float | None = None):
        """Minority rate against proportion of ties over f, one curve per measure (Sakai, AIRS 2005 Figs 3-4)."""
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(6.4, 4.4), dpi=120)
        for measure, rows in self.table.groupby("measure", sort=False):
            axes.plot(rows["proportion_of_ties"], rows["minority_rate"], marker=".", linewidth=1, label=measure)
        axes.axhline(0.05, color="grey", linestyle="--", linewidth=0.8)
        axes.set_xlabel("proportion of ties")
        axes.set_ylabel("minority rate")
        s = self.settings
        axes.set_title(title or f"minority rate / proportion of ties: {self.campaign_id}, c = {s.get('subset_size')}, "
                                f"{s.get('trials')} subsets", fontsize=9)
        axes.legend(fontsize=8)
        axes.grid(alpha=0.3)
        save_figure(figure, path, dpi)
        return path


@stores_in_one_transaction
@default_judgment_set()
def stability(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    *,
    fuzziness: Sequence[float] = DEFAULT_FUZZINESS,
    subset_size: int | None = None,
    trials: int = 1000,
    seed: int = DEFAULT_SEED,
    fuzz: str = "relative",
    strict_bv_rule: bool = False,
    runs: Sequence[str] | None = None,
    store: bool = True,
    judgment_set: str | None = None,
) -> Stability:
    """Minority rate and proportion of ties of ``measures`` (their scores stored under
    ``judgment_set``) for each fuzziness f (default 0.01, 0.02, ..., 0.20) over T subsets of c
    topics (default c = ⌊n/2⌋), the same subsets for every measure. Stored in minority_rates."""
    if trials < 1:
        raise PyevalError(f"the number of trials must be positive; got {trials}")
    require_choice("fuzz", fuzz, FUZZ)
    values = [float(f) for f in fuzziness]
    if not values or any(not 0 <= f < 1 for f in values):
        raise PyevalError(f"fuzziness values must lie in [0, 1); got {', '.join(map(str, values)) or 'none'}")
    names = measure_names(measures)
    data = measure_matrices(con, campaign_id, names, runs, judgment_set)
    n = len(data.topic_ids)
    c = subset_size_iv(subset_size if subset_size is not None else max(1, n // 2), n, 1)
    draws = rep.obtain(con, "subset", campaign_id, data.topic_ids, trials, seed, store=store, subset_size=c)
    frames = []
    for name in names:
        counts = stability_counts(data.values[name], draws.draws, values, fuzz=fuzz, strict_bv_rule=strict_bv_rule)
        counts.insert(0, "measure", name)
        counts.insert(1, "evaluation_id", data.evaluation_ids[name])
        frames.append(counts)
    table = pd.concat(frames, ignore_index=True)
    common = {"campaign_id": campaign_id, "topic_count": n, "subset_size": c, "trials": trials, "seed": seed,
              "replicate_set_id": draws.replicate_set_id, "fuzz": fuzz, "strict_bv_rule": strict_bv_rule,
              "judgment_set": judgment_set}
    result = Stability(campaign_id, table, {**common, "runs": len(data.run_ids)})
    if store:
        rows = table.copy()
        for key, value in common.items():
            rows[key] = value
        rows["run_ids"] = [list(data.run_ids)] * len(rows)
        rows = rows.astype({"evaluation_id": "Int64", "replicate_set_id": "Int64"})
        result.stability_id = insert_experiment(con, TABLE, "stability_id", rows)
    return result


__all__ = ["DEFAULT_FUZZINESS", "Stability", "stability", "stability_counts"]
