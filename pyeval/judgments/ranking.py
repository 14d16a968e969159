"""Score and ranking agreement of a measure under two judgment sets (docs/judgments.md section 5):
rank correlations of the run means (all runs and the reference's top k), the rank of the
reference's best run under the candidate, the fraction of significant run pairs that keep their
verdict, and Bland-Altman agreement of the run means and of the per-topic scores.

Rank correlations reuse pyeval.resampling.correlation (Kendall's tau-b via scipy, tau_ap of
Yilmaz, Aslam & Robertson 2008 with the reference as the "true" ranking, ranks by mean with ties
broken by run id); significance reuses pyeval.resampling.significance.test_matrix. Spearman's
rho and Pearson's r are scipy.stats'; per topic, the mean of Kendall's tau_b between the runs'
scores of each topic (how far the sets agree on a topic's ranking of the runs: the per-topic
agreement Pradeep et al., arXiv 2504.15068, single out as the weaker one). Bland & Altman
(1986): d = candidate − reference, bias = mean(d), limits of agreement = bias ± 1.96 sd(d)
(sample sd, n − 1).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from ..errors import PyevalError, PyevalWarning, require_choice, with_command_line
from ..resampling.correlation import correlate_means, ranking, significant_pair_agreement
from ..resampling.matrix import ScoreMatrix, canonical_measure, score_matrix
from ..resampling.significance import test_matrix
from .. import vocabulary
from ..vocabulary import names

ON_MISSING = names(vocabulary.ON_MISSING)
MIN_RUNS = 3
LIMIT_Z = 1.96


@dataclass(repr=False)
class RankingAgreement(Displayed):
    """``table``: one row per (statistic, top_k) with value, runs, topics, warning (top_k None:
    all runs); ``means``: run_id, reference, candidate (the runs' means over the common topics);
    ``differences``: run_id, topic_id, reference, candidate (per-topic scores); ``warnings``."""

    campaign_id: str
    reference: str
    candidate: str
    measure: str
    table: pd.DataFrame
    means: pd.DataFrame
    differences: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    def df(self) -> pd.DataFrame:
        """``table``: one row per statistic and top k (None: all runs)."""
        return self.table

    def _display_note(self) -> str:
        return "\n".join([f"{self.candidate} against {self.reference} on {self.measure} ({self.campaign_id})",
                          *(f"warning: {note}" for note in self.warnings)])



def stored_matrix(con: duckdb.DuckDBPyConnection, campaign_id: str, measure: str, judgment_set: str,
                  runs: Sequence[str] | None, evaluate_missing: bool = True) -> ScoreMatrix:
    """The stored scores of ``measure`` under ``judgment_set`` (evaluated and stored first when
    there are none and ``evaluate_missing``)."""
    try:
        return score_matrix(con, campaign_id, measure, runs, judgment_set)
    except PyevalError as exc:
        if not evaluate_missing or "no stored scores" not in str(exc):
            raise
    from pyeval.core.evaluation import evaluate

    evaluate(con, campaign_id, [measure], runs=runs, judgment_set=judgment_set)
    return score_matrix(con, campaign_id, measure, runs, judgment_set)


def _align(reference: ScoreMatrix, candidate: ScoreMatrix, on_missing: str, notes: list[str]
           ) -> tuple[ScoreMatrix, ScoreMatrix]:
    """Both matrices over the runs and topics they share; what one side lacks is an error, a
    warning (``warn``) or dropped quietly (``skip``)."""
    for what, ours, theirs in (("runs", reference.run_ids, candidate.run_ids),
                               ("topics", reference.topic_ids, candidate.topic_ids)):
        only_reference = sorted(set(ours) - set(theirs))
        only_candidate = sorted(set(theirs) - set(ours))
        for side, names in (("reference", only_reference), ("candidate", only_candidate)):
            if not names:
                continue
            text = (f"{len(names)} {what} scored under the {side} set only ({', '.join(names[:5])}"
                    f"{', ...' if len(names) > 5 else ''}): left out")
            if on_missing == "error":
                found = text.removesuffix(": left out")  # run names may hold any character
                raise with_command_line(PyevalError(f"{found}; on_missing='warn' or 'skip' compares the rest"),
                                        f"{found}; --on-missing warn or skip compares the rest")
            if on_missing == "warn":
                notes.append(text)
    runs = [r for r in reference.run_ids if r in set(candidate.run_ids)]
    topics = [t for t in reference.topic_ids if t in set(candidate.topic_ids)]
    if not runs or not topics:
        raise PyevalError("the two judgment sets share no scored run and topic")

    def cut(matrix: ScoreMatrix) -> ScoreMatrix:
        rows = [matrix.topic_ids.index(t) for t in topics]
        cols = [matrix.run_ids.index(r) for r in runs]
        return replace(matrix, topic_ids=tuple(topics), run_ids=tuple(runs), values=matrix.values[np.ix_(rows, cols)])

    return cut(reference), cut(candidate)


def _correlations(a: np.ndarray, b: np.ndarray, runs: list[str]) -> dict[str, tuple[float | None, str | None]]:
    """tau-b, tau_ap, Spearman and Pearson of two mean vectors, or None with the reason."""
    from scipy import stats

    names = ("kendall_tau_b", "tau_ap", "spearman_rho", "pearson_r")
    if len(a) < MIN_RUNS:
        return dict.fromkeys(names, (None, f"fewer than {MIN_RUNS} runs ({len(a)})"))
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        side = "reference" if np.ptp(a) == 0 else "candidate"
        return dict.fromkeys(names, (None, f"every run has the same mean under the {side} set"))
    correlation = correlate_means(a, b, runs)
    return {
        "kendall_tau_b": (correlation.tau_b, None),
        "tau_ap": (correlation.tau_ap, None),
        "spearman_rho": (float(stats.spearmanr(a, b).statistic), None),
        "pearson_r": (float(stats.pearsonr(a, b).statistic), None),
    }


def topic_tau(reference: np.ndarray, candidate: np.ndarray) -> tuple[float | None, int, str | None]:
    """The mean over topics of Kendall's tau_b (scipy) between the runs' scores of a topic under
    the two sets (rows: topics, columns: runs), the topics it averages, and a warning naming how
    many were left out: where tau is undefined (fewer than 3 runs; every run with the same score
    under a set: an easy or an unjudged topic)."""
    from scipy import stats

    values = [float(stats.kendalltau(a, b).statistic) for a, b in zip(reference, candidate)
              if len(a) >= MIN_RUNS and np.ptp(a) > 0 and np.ptp(b) > 0]
    left_out = len(reference) - len(values)
    warning = (f"{left_out} topic(s) left out: fewer than {MIN_RUNS} runs, or every run with the same score "
               "under a set") if left_out else None
    return (float(np.mean(values)) if values else None), len(values), warning


def bland_altman(reference: np.ndarray, candidate: np.ndarray) -> tuple[float | None, float | None, float | None, str | None]:
    """Bias, lower and upper limit of agreement (Bland & Altman 1986) of candidate − reference."""
    d = np.asarray(candidate, dtype=float) - np.asarray(reference, dtype=float)
    if len(d) < 2:
        return None, None, None, "fewer than 2 pairs"
    bias, sd = float(d.mean()), float(d.std(ddof=1))
    return bias, bias - LIMIT_Z * sd, bias + LIMIT_Z * sd, None


def ranking_agreement(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    reference: str,
    candidate: str,
    measure: str,
    *,
    runs: Sequence[str] | None = None,
    top_k: Sequence[int] = (10,),
    test: str = "t",
    alpha: float = 0.05,
    on_missing: str = "error",
    evaluate_missing: bool = True,
) -> RankingAgreement:
    """How far ``measure`` under the set ``candidate`` agrees with it under ``reference``."""
    require_choice("on_missing", on_missing, ON_MISSING)
    if any(k < 1 for k in top_k):
        raise PyevalError("top_k values must be positive integers")
    name = canonical_measure(measure)
    notes: list[str] = []
    ref, cand = _align(stored_matrix(con, campaign_id, name, reference, runs, evaluate_missing),
                       stored_matrix(con, campaign_id, name, candidate, runs, evaluate_missing), on_missing, notes)
    run_ids = list(ref.run_ids)
    a, b = ref.values.mean(axis=0), cand.values.mean(axis=0)
    rows: list[tuple] = []
    order = ranking(a, run_ids)
    for k in [None, *sorted(set(top_k))]:
        chosen = order if k is None else order[:k]
        if k is not None and k >= len(order):
            continue  # the top k is every run: the row of all runs says it
        chosen_runs = [run_ids[j] for j in chosen]
        for statistic, (value, warning) in _correlations(a[chosen], b[chosen], chosen_runs).items():
            rows.append((statistic, k, value, len(chosen), len(ref.topic_ids), warning))
    mean_tau, averaged, warning = topic_tau(ref.values, cand.values)
    rows.append(("kendall_tau_b_topic_mean", None, mean_tau, len(run_ids), averaged, warning))
    best = order[0]
    position = int(np.flatnonzero(ranking(b, run_ids) == best)[0]) + 1
    rows.append(("reference_best_run_rank", None, float(position), len(run_ids), len(ref.topic_ids),
                 None if len(run_ids) >= MIN_RUNS else f"fewer than {MIN_RUNS} runs ({len(run_ids)})"))
    if len(run_ids) >= 2:
        tested_a = test_matrix(ref, test, con=con, alpha=alpha, store_replicates=False).pairs
        tested_b = test_matrix(cand, test, con=con, alpha=alpha, store_replicates=False).pairs
        kept = significant_pair_agreement(tested_a, tested_b, alpha)
        pairs = len(tested_a)
        if kept["significant_a"]:
            value, warning = kept["in_both"] / kept["significant_a"], None
        else:
            value, warning = None, "no significant pair under the reference set"
        rows.append(("significant_pairs_kept", None, value, len(run_ids), len(ref.topic_ids), warning))
        rows.append(("significant_pairs_agreement", None, kept["agreement"], len(run_ids), len(ref.topic_ids),
                     None if kept["agreement"] is not None else "no significant pair under either set"))
        rows.append(("significant_pairs_reference", None, float(kept["significant_a"]), len(run_ids),
                     len(ref.topic_ids), None))
        rows.append(("significant_pairs_candidate", None, float(kept["significant_b"]), len(run_ids),
                     len(ref.topic_ids), None))
        rows.append(("run_pairs", None, float(pairs), len(run_ids), len(ref.topic_ids), None))
    for scope, (x, y) in (("run_means", (a, b)), ("topic_scores", (ref.values.ravel(), cand.values.ravel()))):
        bias, lower, upper, warning = bland_altman(x, y)
        for part, value in (("bias", bias), ("lower", lower), ("upper", upper)):
            rows.append((f"bland_altman_{part}_{scope}", None, value, len(run_ids), len(ref.topic_ids), warning))
    table = pd.DataFrame(rows, columns=["statistic", "top_k", "value", "runs", "topics", "warning"])
    table["top_k"] = table["top_k"].astype("Int64")
    means = pd.DataFrame({"run_id": run_ids, "reference": a, "candidate": b})
    grid_runs, grid_topics = np.meshgrid(run_ids, ref.topic_ids)
    differences = pd.DataFrame({"run_id": grid_runs.ravel(), "topic_id": grid_topics.ravel(),
                                "reference": ref.values.ravel(), "candidate": cand.values.ravel()})
    for note in notes:
        warnings.warn(note, PyevalWarning, stacklevel=2)
    return RankingAgreement(campaign_id, reference, candidate, name, table, means, differences, notes)
