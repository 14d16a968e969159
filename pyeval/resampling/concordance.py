"""Sakai's concordance test (WWW 2012; JIP 2013 Fig. 6; U-measure study Table 2; docs/meta-evaluation.md 10).

For two measures M1, M2 and one or two gold-standard measures M* (intent recall, effective
precision, precision: any stored measure), over every (run pair, topic) "list pair":

- a **disagreement** is sgn ΔM1 · sgn ΔM2 < 0 (tolerance-aware signs, docs/meta-evaluation.md 13);
- M1 is **concordant** on it when ΔM1 · ΔM* ≥ 0 for every gold standard (a gold tie counts as
  concordant for both measures);
- concordance_1 = correct_1 / disagreements (likewise M2);
- wins_1 = disagreements where M1 is concordant and M2 is not (wins_2 the reverse); the two-sided
  exact sign test on (wins_1, wins_2) is scipy.stats.binomtest (p = 1 without wins).

All list pairs of all measure pairs are one array operation: the n x P sign matrices of every
measure are computed once and compared.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from ..errors import PyevalError, with_command_line
from pyeval.core.db import default_judgment_set, stores_in_one_transaction
from .stats import TOLERANCE, differences
from .store import (
    MeasureMatrices,
    announce,
    few_runs,
    insert_experiment,
    measure_matrices,
    measure_names,
    signs,
)

TABLE = "concordance_tests"


def sign_matrix(X: np.ndarray) -> np.ndarray:
    """n x P tolerance-aware signs of X[:, a] − X[:, b] for every run pair a < b."""
    Z = differences(np.asarray(X, dtype=float))
    return signs(Z, float(np.abs(np.asarray(X)).max(initial=0.0)))


def concordance_counts(s1: np.ndarray, s2: np.ndarray, golds: Sequence[np.ndarray]) -> dict:
    """Counts of the concordance test from sign matrices (any common shape): disagreements,
    correct_1, correct_2, wins_1, wins_2, list_pairs."""
    s1, s2 = np.asarray(s1, dtype=np.int8), np.asarray(s2, dtype=np.int8)
    if not golds:
        raise ValueError("at least one gold standard is needed")
    disagree = (s1.astype(np.int16) * s2) < 0
    ok1 = np.logical_and.reduce([(s1.astype(np.int16) * g) >= 0 for g in golds])
    ok2 = np.logical_and.reduce([(s2.astype(np.int16) * g) >= 0 for g in golds])
    return {
        "list_pairs": int(s1.size),
        "disagreements": int(disagree.sum()),
        "correct_1": int((disagree & ok1).sum()),
        "correct_2": int((disagree & ok2).sum()),
        "wins_1": int((disagree & ok1 & ~ok2).sum()),
        "wins_2": int((disagree & ok2 & ~ok1).sum()),
    }


def sign_test_p(wins_1: int, wins_2: int) -> float:
    """Two-sided exact sign test on the wins (scipy.stats.binomtest); 1 when nobody wins."""
    from scipy import stats

    total = wins_1 + wins_2
    return float(stats.binomtest(wins_1, total, 0.5).pvalue) if total else 1.0


def concordance_of(X1: np.ndarray, X2: np.ndarray, golds: Sequence[np.ndarray]) -> dict:
    """The concordance test on topic x run matrices (same topics and runs): the counts,
    concordance_1, concordance_2 and p_value."""
    counts = concordance_counts(sign_matrix(X1), sign_matrix(X2), [sign_matrix(g) for g in golds])
    return _finish(counts)


def _finish(counts: dict) -> dict:
    d = counts["disagreements"]
    counts["concordance_1"] = counts["correct_1"] / d if d else None
    counts["concordance_2"] = counts["correct_2"] / d if d else None
    counts["p_value"] = sign_test_p(counts["wins_1"], counts["wins_2"])
    return counts


#: What a cell of :meth:`Concordance.matrix` says (printed under every matrix).
MATRIX_LEGEND = ("cell: concordance of the row measure / of the column measure with the gold standard over "
                 "the list pairs where the two disagree; ‡ p < 0.01, † p < 0.05 (sign test on the wins) on "
                 "the more concordant one; disagreements in parentheses; - (0): no disagreement")


def mark(p: float) -> str:
    """The seed papers' marks: ‡ p < 0.01, † p < 0.05."""
    return "‡" if p < 0.01 else "†" if p < 0.05 else ""


@dataclass(repr=False)
class Concordance(Displayed):
    """``table``: one row per (measure_1, measure_2, gold set): disagreements, correct_1,
    correct_2, concordance_1, concordance_2, wins_1, wins_2, p_value; ``matrix(gold)``: the
    seed papers' table layout."""

    campaign_id: str
    measures: tuple[str, ...]
    gold_sets: tuple[tuple[str, ...], ...]
    table: pd.DataFrame
    data: MeasureMatrices
    concordance_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure pair and gold standard."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table[["gold", "measure_1", "measure_2", "disagreements", "concordance_1", "concordance_2",
                           "wins_1", "wins_2", "p_value"]]

    def _display_note(self) -> str:
        return (f"{self.campaign_id}: {len(self.data.run_ids)} runs, {len(self.data.topic_ids)} topics, "
                f"{int(self.table['list_pairs'].iloc[0])} list pairs; sign test on the wins") + (f"\nstored as concordance experiment {self.concordance_id}" if self.concordance_id is not None else "")

    def matrix(self, gold: str | Sequence[str] | None = None, digits: int = 3) -> pd.DataFrame:
        """Rows measure_1, columns measure_2 (JIP 2013 Table 6 / U-measure Table 2): each cell
        ``conc_1/conc_2`` with ‡/† on the significantly more concordant measure and the number of
        disagreements in parentheses."""
        golds = self.gold_sets[0] if gold is None else ((gold,) if isinstance(gold, str) else tuple(gold))
        rows = self.table[self.table["gold"] == " & ".join(golds)]
        if rows.empty:
            raise PyevalError(f"no concordance results against {' & '.join(golds)}")
        names = list(self.measures)
        square = pd.DataFrame("", index=names[:-1], columns=names[1:])
        for row in rows.itertuples(index=False):
            if row.disagreements == 0:
                cell = "- (0)"
            else:
                first = f"{row.concordance_1:.{digits}f}"
                second = f"{row.concordance_2:.{digits}f}"
                sign = mark(row.p_value)
                if sign and row.wins_1 > row.wins_2:
                    first += sign
                elif sign:
                    second += sign
                cell = f"{first}/{second} ({row.disagreements})"
            square.loc[row.measure_1, row.measure_2] = cell
        return square


@stores_in_one_transaction
@default_judgment_set()
def concordance(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    gold: str | Sequence[str],
    *,
    each_gold: bool = False,
    runs: Sequence[str] | None = None,
    store: bool = True,
    judgment_set: str | None = None,
) -> Concordance:
    """Concordance test of every pair of ``measures`` (two: one test; more: the seed papers' matrix)
    against the gold standard(s) ``gold`` (one or two stored measures; two are applied
    together). ``each_gold`` with two gold standards also tests against each alone (the seed papers'
    parts (a), (b) and (c)). Runs: those scored on every measure (or ``runs``); topics: those
    every measure has values for; scores: those stored under ``judgment_set``."""
    names = measure_names(measures, at_least=2)
    golds = [gold] if isinstance(gold, str) else list(gold)
    gold_names = measure_names(golds) if golds else []
    if not 1 <= len(gold_names) <= 2:
        raise with_command_line(
            PyevalError(f"give one or two gold-standard measures (gold=); got {len(gold_names)}"),
            f"give one or two gold-standard measures (--gold); got {len(gold_names)}")
    overlap = sorted(set(names) & set(gold_names))
    if overlap:
        raise PyevalError(f"{overlap[0]} is both a compared measure and a gold standard")
    gold_sets = [tuple(gold_names)]
    if each_gold and len(gold_names) == 2:
        gold_sets = [(gold_names[0],), (gold_names[1],), tuple(gold_names)]
    data = measure_matrices(con, campaign_id, [*names, *gold_names], runs, judgment_set)
    sign_of = {name: sign_matrix(data.values[name]) for name in data.measures}
    rows = []
    shared_warnings = few_runs(len(data.run_ids))
    for golds_used in gold_sets:
        for first, second in combinations(names, 2):
            counts = _finish(concordance_counts(sign_of[first], sign_of[second], [sign_of[g] for g in golds_used]))
            notes = list(shared_warnings)
            if counts["disagreements"] == 0:
                notes.append(f"{first} and {second} never disagree on a list pair: nothing to test")
            rows.append({
                "campaign_id": campaign_id, "measure_1": first, "measure_2": second, "gold": " & ".join(golds_used),
                "gold_1": golds_used[0], "gold_2": golds_used[1] if len(golds_used) > 1 else None,
                "evaluation_id": data.evaluation_id,
                "evaluation_ids": [data.evaluation_ids[m] for m in (first, second, *golds_used)],
                "run_ids": list(data.run_ids), "topic_count": len(data.topic_ids), "tolerance": TOLERANCE,
                **counts, "warnings": notes, "judgment_set": judgment_set,
            })
    table = pd.DataFrame(rows)
    announce([note for row in rows for note in row["warnings"]])
    result = Concordance(campaign_id, tuple(names), tuple(gold_sets), table, data)
    if store:
        stored = table.drop(columns=["gold"]).astype({"concordance_1": "Float64", "concordance_2": "Float64",
                                                      "gold_2": "string", "evaluation_id": "Int64"})
        result.concordance_id = insert_experiment(con, TABLE, "concordance_id", stored)
    return result


__all__ = ["Concordance", "concordance", "concordance_counts", "concordance_of", "mark", "sign_matrix",
           "sign_test_p"]
