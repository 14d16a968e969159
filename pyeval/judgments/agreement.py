"""Label agreement of two judgment sets, per topic and overall (docs/judgments.md section 4).

The confusion counts come from SQL (sql/judgments/label_confusion.sql); every coefficient is
computed here from a confusion matrix O (rows: the reference set's labels, columns: the
candidate's, over the units both judged), in numpy:

- raw agreement: trace(O) / n;
- Cohen's kappa (Cohen 1960): (p_o − p_e) / (1 − p_e), p_e from the margins; weighted kappa
  (Cohen 1968): 1 − Σ w·O / Σ w·E, E the outer product of the margins / n, w_ij = |i − j| / (k − 1)
  (linear) or its square (quadratic), i, j the positions of the labels among the k labels either
  set uses (scikit-learn's cohen_kappa_score with weights 'linear' / 'quadratic');
- binary kappa at a threshold t: Cohen's kappa of (level >= t) against (level >= t);
- Krippendorff's alpha (Krippendorff 2011) for two coders with no missing values: from the
  coincidence matrix C = O + Oᵀ (n_c its margins, N = 2n), alpha = 1 − (N − 1) Σ C_ck δ²_ck /
  Σ n_c n_k δ²_ck, with δ²_ck = [c ≠ k] (nominal), (Σ_{g=c..k} n_g − (n_c + n_k)/2)² (ordinal)
  or (c − k)² of the label values (interval);
- Jaccard |R ∩ C| / |R ∪ C| and overlap |R ∩ C| / min(|R|, |C|) of the relevant sets (level >=
  t) over every unit either set judged, at every threshold t, as binary kappa.

An undefined coefficient (no unit judged by both; every label in one category, so that p_e = 1)
is stored as null with a warning, never as 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from pyeval.core import sqlfiles

#: The coefficients, as stored in judgment_agreement.coefficient.
COEFFICIENTS = (
    "raw_agreement",
    "cohen_kappa",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "cohen_kappa_binary",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
    "jaccard_relevant",
    "overlap_relevant",
)


@dataclass(frozen=True)
class Value:
    """One coefficient: its value (None where undefined) and why it is undefined."""

    value: float | None
    warning: str | None = None


def _undefined(reason: str) -> Value:
    return Value(None, reason)


def confusion_matrix(cells: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The labels both sets use (sorted) and the matrix O of ``cells`` (reference_level,
    candidate_level, documents; units judged by both)."""
    labels = np.union1d(cells["reference_level"].to_numpy(dtype=int), cells["candidate_level"].to_numpy(dtype=int))
    index = {label: position for position, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=float)
    rows = cells["reference_level"].map(index).to_numpy()
    cols = cells["candidate_level"].map(index).to_numpy()
    np.add.at(matrix, (rows, cols), cells["documents"].to_numpy(dtype=float))
    return labels, matrix


def raw_agreement(matrix: np.ndarray) -> Value:
    n = matrix.sum()
    if n == 0:
        return _undefined("no unit judged by both sets")
    return Value(float(np.trace(matrix) / n))


def cohen_kappa(matrix: np.ndarray, weights: str | None = None) -> Value:
    """Cohen's kappa (``weights`` None; Cohen 1960) or weighted kappa (``'linear'``,
    ``'quadratic'``; Cohen 1968) of the confusion matrix ``matrix``."""
    n = matrix.sum()
    if n == 0:
        return _undefined("no unit judged by both sets")
    k = matrix.shape[0]
    expected = np.outer(matrix.sum(axis=1), matrix.sum(axis=0)) / n
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
        w = distance if weights == "linear" else distance ** 2
    disagreement_expected = float((w * expected).sum())
    if disagreement_expected == 0:
        return _undefined("every label in one category: chance agreement is 1, kappa undefined")
    return Value(float(1.0 - (w * matrix).sum() / disagreement_expected))


def binary_matrix(labels: np.ndarray, matrix: np.ndarray, threshold: int) -> np.ndarray:
    """The 2x2 confusion matrix of (level >= threshold) from the graded one."""
    relevant = (labels >= threshold).astype(int)
    binary = np.zeros((2, 2))
    np.add.at(binary, (relevant[:, None].repeat(len(labels), 1), relevant[None, :].repeat(len(labels), 0)), matrix)
    return binary


def krippendorff_alpha(labels: np.ndarray, matrix: np.ndarray, level: str) -> Value:
    """Krippendorff's alpha (2011) of two coders who both coded every unit, ``level``
    'nominal', 'ordinal' or 'interval' (the labels' values, the relevance levels, as distances),
    from the confusion matrix ``matrix`` over ``labels``."""
    coincidence = matrix + matrix.T
    margins = coincidence.sum(axis=1)
    total = margins.sum()
    if total == 0:
        return _undefined("no unit judged by both sets")
    k = len(labels)
    if level == "nominal":
        delta = 1.0 - np.eye(k)
    elif level == "interval":
        values = labels.astype(float)
        delta = np.subtract.outer(values, values) ** 2
    else:
        cumulative = np.concatenate([[0.0], np.cumsum(margins)])
        lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
        between = cumulative[hi + 1] - cumulative[lo]
        delta = (between - (margins[:, None] + margins[None, :]) / 2.0) ** 2
    expected = float((np.outer(margins, margins) * delta).sum())
    if expected == 0:
        return _undefined("every label in one category: expected disagreement is 0, alpha undefined")
    return Value(float(1.0 - (total - 1.0) * (coincidence * delta).sum() / expected))


def relevant_sets(cells: pd.DataFrame, threshold: int) -> tuple[Value, Value]:
    """Jaccard and overlap coefficient of the relevant sets (level >= threshold) over every unit
    either set judged (``cells`` with null levels for one-sided units)."""
    reference = cells["reference_level"].to_numpy(dtype=float, na_value=np.nan) >= threshold
    candidate = cells["candidate_level"].to_numpy(dtype=float, na_value=np.nan) >= threshold
    count = cells["documents"].to_numpy(dtype=float)
    both = float(count[reference & candidate].sum())
    either = float(count[reference | candidate].sum())
    smaller = min(float(count[reference].sum()), float(count[candidate].sum()))
    jaccard = Value(both / either) if either else _undefined("neither set judges a unit relevant")
    overlap = Value(both / smaller) if smaller else _undefined("a set judges no unit relevant")
    return jaccard, overlap


def coefficients(cells: pd.DataFrame, thresholds: list[int]) -> list[tuple[str, int | None, Value]]:
    """Every coefficient of one topic (or of all topics) from its confusion cells, those of a
    threshold at each of ``thresholds``."""
    judged = cells.dropna(subset=["reference_level", "candidate_level"])
    labels, matrix = confusion_matrix(judged)
    rows: list[tuple[str, int | None, Value]] = [
        ("raw_agreement", None, raw_agreement(matrix)),
        ("cohen_kappa", None, cohen_kappa(matrix)),
        ("cohen_kappa_linear", None, cohen_kappa(matrix, "linear")),
        ("cohen_kappa_quadratic", None, cohen_kappa(matrix, "quadratic")),
    ]
    for threshold in thresholds:
        binary = binary_matrix(labels, matrix, threshold)
        value = cohen_kappa(binary)
        if value.value is not None and (binary.sum(axis=0).min() == 0 or binary.sum(axis=1).min() == 0):
            side = "reference" if binary.sum(axis=1).min() == 0 else "candidate"
            value = Value(value.value, f"the {side} set gives every unit the same label at this threshold: "
                                       "kappa is 0 by definition")
        rows.append(("cohen_kappa_binary", threshold, value))
    rows += [
        ("krippendorff_alpha_nominal", None, krippendorff_alpha(labels, matrix, "nominal")),
        ("krippendorff_alpha_ordinal", None, krippendorff_alpha(labels, matrix, "ordinal")),
        ("krippendorff_alpha_interval", None, krippendorff_alpha(labels, matrix, "interval")),
    ]
    for threshold in thresholds:  # the relevant sets at every threshold, as binary kappa
        jaccard, overlap = relevant_sets(cells, threshold)
        rows += [("jaccard_relevant", threshold, jaccard), ("overlap_relevant", threshold, overlap)]
    return rows


@dataclass(repr=False)
class LabelAgreement(Displayed):
    """``agreement``: one row per (topic_id, coefficient, threshold) — topic_id None overall —
    with value, units (judged by both), reference_only, candidate_only, warning; ``confusion``:
    topic_id, reference_level, candidate_level, documents (null level: not judged by that set)."""

    campaign_id: str
    reference: str
    candidate: str
    agreement: pd.DataFrame
    confusion: pd.DataFrame
    thresholds: list[int]
    threshold: int

    def df(self) -> pd.DataFrame:
        """``agreement``: one row per topic (None: overall), coefficient and threshold."""
        return self.agreement

    def _display_frame(self) -> pd.DataFrame:
        return self.agreement[self.agreement["topic_id"].isna()]  # the overall values; per topic in df()

    def _display_note(self) -> str:
        return f"{self.candidate} against {self.reference} ({self.campaign_id}): overall label agreement"



def label_agreement(con: duckdb.DuckDBPyConnection, campaign_id: str, reference: str, candidate: str, *,
                    threshold: int = 1) -> LabelAgreement:
    """Label agreement of the sets ``candidate`` and ``reference`` per topic and overall: binary
    kappa, Jaccard and overlap at every threshold from 1 to the highest level either set uses and
    at ``threshold`` (the one summaries show). Two nugget assignment sets are compared on their
    labels of (run, topic, nugget) as levels 0-2 (pyeval/judgments/nuggets.py)."""
    from .nuggets import confusion_file

    model = sqlfiles.model(confusion_file(con, campaign_id, reference, candidate))
    cells = con.execute(sqlfiles.read(model.path), model.bind(
        {"campaign_id": campaign_id, "reference": reference, "candidate": candidate})).df()
    cells = cells.astype({"reference_level": "Int64", "candidate_level": "Int64", "documents": "int64"})
    levels = pd.concat([cells["reference_level"], cells["candidate_level"]]).dropna()
    top = int(levels.max()) if len(levels) else 1
    thresholds = sorted(set(range(1, max(top, 1) + 1)) | {threshold})
    overall = cells.groupby(["reference_level", "candidate_level"], dropna=False, as_index=False)["documents"].sum()
    rows = []
    for topic, part in [(None, overall), *cells.groupby("topic_id", sort=True)]:
        both = int(part.loc[part["reference_level"].notna() & part["candidate_level"].notna(), "documents"].sum())
        reference_only = int(part.loc[part["candidate_level"].isna(), "documents"].sum())
        candidate_only = int(part.loc[part["reference_level"].isna(), "documents"].sum())
        for coefficient, at, value in coefficients(part, thresholds):
            rows.append((topic, coefficient, at, value.value, both, reference_only, candidate_only, value.warning))
    agreement = pd.DataFrame(rows, columns=["topic_id", "coefficient", "threshold", "value", "units",
                                            "reference_only", "candidate_only", "warning"])
    agreement["threshold"] = agreement["threshold"].astype("Int64")
    confusion = pd.concat([overall.assign(topic_id=None), cells], ignore_index=True)[
        ["topic_id", "reference_level", "candidate_level", "documents"]]
    return LabelAgreement(campaign_id, reference, candidate, agreement, confusion, thresholds, threshold)
