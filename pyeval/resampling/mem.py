"""Informativeness by the maximum entropy method (Ashkan & Clarke, WWW 2011;
docs/meta-evaluation.md section 12; measure forms of docs/diversity-measures.md section 6.2).

For a target measure and each (run, topic): infer the product-Bernoulli distribution of binary
per-intent relevance over the top N documents, p_i^j = Pr(the document at rank i is relevant to
intent j), that has maximum entropy subject to

1. Σ_i p_i^j = R^j_ret for every intent j (relevant documents actually retrieved in the top N),
2. E[target] = the target's value on the actual list,
3. 0 ≤ p_i^j ≤ 1,

then measure how much that distribution says: the inferred precision-recall curve against the
actual one (``rms``, ``mae``), and the predicted means of other measures against their actual
means over runs (Kendall's ``tau``, ``rmsr``, ``mare``).

Targets (MEM's own definitions, *not* the registry's measures of the same name): with binary
relevance g, α = 0.5, β = 0.8, c_r = relevant documents above rank r,

- cascade, one "intent" (relevant to any intent): ``ERR`` Σ α g (1−α)^c / r, ``RBP``
  Σ α g (1−α)^c β^(r−1), ``DCG`` Σ g (1−α)^c / log2(1 + r);
- intent-aware, φ_j = 1/M over the M intents with a relevant document: ``ERR-IA``, ``NRBP``,
  ``alpha-DCG`` (the same per intent, averaged);
- ``AP`` (Aslam, Yilmaz & Pavlu 2005: (1/R) Σ_i (g_i/i) Σ_{k≤i} g_k, R = relevant documents in the
  qrels) and ``AP-IA`` (per intent with R^j, averaged).

Expectations: the dynamic programme of section 12.3, ``expectation='exact'`` (E[M] under the
product distribution, the A/P recursion) or ``'paper'`` (the printed recursion T^N_{R_ret}). Both
are multilinear in the p_i^j, so the gradient is exact and cheap: ∂E/∂p_i = E(p_i = 1) − E(p_i = 0),
one batched DP over 2N probability rows. The "actual" value of a measure is the same
expectation at the actual 0/1 relevance (both recursions give the measure's value there), so a
formula is written once. AP's expectation is the closed form of Aslam et al.

Optimisation: scipy.optimize.minimize (SLSQP by default, or trust-constr) of −H with the
analytic gradients, from the uniform feasible point p = R^j_ret/N, bounds [1e-12, 1 − 1e-12].
Intents with R^j_ret = 0 or N are fixed at 0 or 1. A problem whose observed value is the largest
(or smallest) the target takes over 0/1 lists with R^j_ret relevant documents is solved by that
list itself (``status='extreme'``). Convergence: the solver's success flag and the largest
constraint residual ≤ ``tolerance`` (1e-8); an SLSQP failure is retried once with trust-constr
(the status records both); a problem still failing is stored with
``converged = false``, its status and residual, and its last iterate is still used for the
predictions (the counts of failures are reported).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from pyeval.core import sqlfiles
from ..display import Displayed
from .. import progress as bars
from pyeval.storage.public import use_internal_schema
from pyeval.core.db import check_judgment_set, default_judgment_set, stores_in_one_transaction
from ..errors import PyevalError, require_choice
from .matrix import campaign_runs
from .store import insert_experiment

SOLUTIONS_TABLE = "mem_solutions"
PREDICTIONS_TABLE = "mem_predictions"
EXPECTATIONS = ("exact", "paper")
SOLVERS = ("SLSQP", "trust-constr")
EPSILON = 1e-12

#: target -> (kind, intent-aware, discount); kind 'cascade' or 'ap'.
MEASURES: dict[str, tuple[str, bool, str | None]] = {
    "ERR": ("cascade", False, "err"),
    "RBP": ("cascade", False, "rbp"),
    "DCG": ("cascade", False, "dcg"),
    "AP": ("ap", False, None),
    "ERR-IA": ("cascade", True, "err"),
    "NRBP": ("cascade", True, "rbp"),
    "alpha-DCG": ("cascade", True, "dcg"),
    "AP-IA": ("ap", True, None),
}
#: the targets whose values are not bounded by 1 (unnormalised DCG sums gains over the ranks)
UNBOUNDED = frozenset(name for name, (_, _, discount) in MEASURES.items() if discount == "dcg")
_ALIASES = {"ERRIA": "ERR-IA", "ERR_IA": "ERR-IA", "ALPHA-DCG": "alpha-DCG", "ALPHADCG": "alpha-DCG",
            "Α-DCG": "alpha-DCG", "APIA": "AP-IA", "AP_IA": "AP-IA"}


def target_name(text: str) -> str:
    """The canonical MEM measure name (``ERR-IA``, ``alpha-DCG``, ...) of ``text``."""
    for name in MEASURES:
        if text == name or text.upper() == name.upper():
            return name
    found = _ALIASES.get(text.upper())
    if found:
        return found
    raise PyevalError(f"MEM target must be one of {', '.join(MEASURES)}; got {text!r}")


def predicted_by(target: str) -> list[str]:
    """Cascade targets (and AP) predict the other non-IA measures; IA targets the other IA ones."""
    ia = MEASURES[target][1]
    return [name for name, (_, aware, _) in MEASURES.items() if aware == ia and name != target]


# ---------------------------------------------------------------------------------------------
# Expectations (docs/meta-evaluation.md 12.3): batched over rows of probability vectors
# ---------------------------------------------------------------------------------------------


def gain_table(discount: str, depth: int, alpha: float = 0.5, beta: float = 0.8) -> np.ndarray:
    """G[i − 1, r] = gain of the r-th relevant document found at rank i (G[:, 0] = 0):
    α(1 − α)^(r−1)/i (err), α(1 − α)^(r−1) β^(i−1) (rbp), (1 − α)^(r−1)/log2(1 + i) (dcg)."""
    i = np.arange(1, depth + 1, dtype=float)[:, None]
    r = np.arange(0, depth + 1, dtype=float)[None, :]
    novelty = np.where(r >= 1, (1 - alpha) ** np.maximum(r - 1, 0), 0.0)
    if discount == "err":
        return alpha * novelty / i
    if discount == "rbp":
        return alpha * novelty * beta ** (i - 1)
    if discount == "dcg":
        return novelty / np.log2(1 + i)
    raise ValueError(f"unknown discount {discount!r}")


def cascade_expectation(P: np.ndarray, G: np.ndarray, mode: str = "exact",
                        counts: np.ndarray | None = None, conditional: bool = False) -> np.ndarray:
    """Expected cascade measure of each row of P (B x N relevance probabilities).

    ``mode='exact'``: E[M] = Σ_r A^N_r with A^i_r = p_i (A^{i−1}_{r−1} + G_i(r) P^{i−1}_{r−1}) +
    (1 − p_i) A^{i−1}_r and P^i_r = Pr(r relevant in the top i); with ``conditional`` and
    ``counts``: E[M | C_N = counts] = A^N_R / P^N_R. ``mode='paper'``: the printed recursion
    T^i_r = p_i (T^{i−1}_{r−1} + G_i(r)) + (1 − p_i) T^{i−1}_r (0 for i < r), value T^N_{counts}.
    """
    P = np.atleast_2d(np.asarray(P, dtype=float))
    B, N = P.shape
    rows = np.arange(B)
    if mode == "paper":
        if counts is None:
            raise ValueError("the paper's recursion needs the number of relevant documents (counts)")
        T = np.zeros((B, N + 1))
        for i in range(1, N + 1):
            p = P[:, i - 1:i]
            shifted = np.zeros_like(T)
            shifted[:, 1:] = T[:, :-1] + G[i - 1, 1:][None, :]
            T = p * shifted + (1 - p) * T
            T[:, i + 1:] = 0.0
        return T[rows, np.asarray(counts, dtype=int)]
    if mode != "exact":
        raise ValueError(f"expectation must be one of {', '.join(EXPECTATIONS)}; got {mode!r}")
    A = np.zeros((B, N + 1))
    Pr = np.zeros((B, N + 1))
    Pr[:, 0] = 1.0
    for i in range(1, N + 1):
        p = P[:, i - 1:i]
        A_shift = np.zeros_like(A)
        A_shift[:, 1:] = A[:, :-1] + G[i - 1, 1:][None, :] * Pr[:, :-1]
        P_shift = np.zeros_like(Pr)
        P_shift[:, 1:] = Pr[:, :-1]
        A = p * A_shift + (1 - p) * A
        Pr = p * P_shift + (1 - p) * Pr
    if conditional:
        R = np.asarray(counts, dtype=int)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(Pr[rows, R] > 0, A[rows, R] / Pr[rows, R], 0.0)
    return A.sum(axis=1)


def ap_expectation(P: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """E[AP] of each row under independence (Aslam, Yilmaz & Pavlu 2005):
    (1/R) Σ_i (p_i/i)(1 + Σ_{k<i} p_k); 0 when R = 0."""
    P = np.atleast_2d(np.asarray(P, dtype=float))
    ranks = np.arange(1, P.shape[1] + 1)
    above = np.cumsum(P, axis=1) - P
    total = (P / ranks * (1 + above)).sum(axis=1)
    R = np.asarray(relevant, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(R > 0, total / np.maximum(R, 1), 0.0)


@dataclass(frozen=True)
class Settings:
    depth: int = 10
    alpha: float = 0.5
    beta: float = 0.8
    expectation: str = "exact"


def row_expectation(measure: str, P: np.ndarray, counts: np.ndarray, relevant: np.ndarray,
                    settings: Settings) -> np.ndarray:
    """Per-row (one intent's) expectation of ``measure``'s per-intent form."""
    kind, _, discount = MEASURES[measure]
    if kind == "ap":
        return ap_expectation(P, relevant)
    return cascade_expectation(P, gain_table(discount, P.shape[-1], settings.alpha, settings.beta),
                               settings.expectation, counts)


def expectation(measure: str, P: np.ndarray, counts: np.ndarray, relevant: np.ndarray, weights: np.ndarray,
                settings: Settings) -> np.ndarray:
    """Expected value per problem: P is K x M x N (M intents; M = 1 for non-IA measures),
    counts/relevant/weights K x M (R^j_ret, R^j, φ_j). Σ_j φ_j E_j."""
    K, M, N = P.shape
    values = row_expectation(measure, P.reshape(K * M, N), counts.reshape(-1), relevant.reshape(-1), settings)
    return (values.reshape(K, M) * weights).sum(axis=1)


# ---------------------------------------------------------------------------------------------
# One maximum-entropy problem
# ---------------------------------------------------------------------------------------------


@dataclass
class Solution:
    """p (M x N), entropy, iterations, residual (largest constraint violation), converged, status."""

    p: np.ndarray
    entropy: float
    iterations: int
    residual: float
    converged: bool
    status: str


def entropy(p: np.ndarray) -> float:
    """Σ −p ln p − (1 − p) ln(1 − p) (0 ln 0 = 0)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -np.where(p > 0, p * np.log(p), 0.0) - np.where(p < 1, (1 - p) * np.log1p(-p), 0.0)
    return float(terms.sum())


def _packed(counts: np.ndarray, N: int, top: bool) -> np.ndarray:
    """Rows with counts[j] ones at the top (or bottom) of N positions."""
    ranks = np.arange(N)[None, :]
    return (ranks < counts[:, None]).astype(float) if top else (ranks >= N - counts[:, None]).astype(float)


def solve(measure: str, observed: float, counts: np.ndarray, relevant: np.ndarray, weights: np.ndarray,
          settings: Settings, *, solver: str = "SLSQP", tolerance: float = 1e-8, maxiter: int = 500,
          fallback: bool = True) -> Solution:
    """The maximum-entropy p (M x N) for one (run, topic): Σ_i p_i^j = counts[j] and
    E[measure] = observed (docs/meta-evaluation.md 12.2-12.4). An SLSQP run that does not converge is
    retried with trust-constr (``fallback``); the better of the two is kept."""
    from scipy import optimize

    N = settings.depth
    counts = np.asarray(counts, dtype=int)
    relevant = np.asarray(relevant, dtype=float)
    weights = np.asarray(weights, dtype=float)
    M = len(counts)
    free = (counts > 0) & (counts < N)
    base = np.where((counts >= N)[:, None], 1.0, 0.0) * np.ones((M, N))

    def value(P: np.ndarray) -> float:
        return float(expectation(measure, P[None], counts[None], relevant[None], weights[None], settings)[0])

    if not free.any():
        residual = abs(value(base) - observed)
        return Solution(base, 0.0, 0, residual, residual <= tolerance,
                        "fixed" if residual <= tolerance else "fixed: observed value not reproduced")
    top, bottom = base.copy(), base.copy()
    top[free] = _packed(counts[free], N, True)
    bottom[free] = _packed(counts[free], N, False)
    high, low = value(top), value(bottom)
    close = tolerance * 1e-2
    if high - low > close and (observed >= high - close or observed <= low + close):
        # the observed value is the target's largest (smallest) over lists with these counts:
        # relevant documents packed at the top (bottom), which the solver can only approach
        return Solution(top if observed >= high - close else bottom, 0.0, 0, 0.0, True, "extreme")
    index = np.flatnonzero(free)
    F = len(index)

    def full(x: np.ndarray) -> np.ndarray:
        P = base.copy()
        P[index] = x.reshape(F, N)
        return P

    def objective(x):
        x = np.clip(x, EPSILON, 1 - EPSILON)
        return float(np.sum(x * np.log(x) + (1 - x) * np.log1p(-x)))

    def objective_grad(x):
        x = np.clip(x, EPSILON, 1 - EPSILON)
        return np.log(x) - np.log1p(-x)

    eye = np.eye(N, dtype=bool)

    def target_grad(x):
        P = full(x)
        rows = np.repeat(P[index], N, axis=0).reshape(F, N, N)  # [f, i, :] = P[j_f]
        ones, zeros = rows.copy(), rows.copy()
        ones[:, eye] = 1.0
        zeros[:, eye] = 0.0
        stacked = np.concatenate([ones, zeros]).reshape(-1, N)
        c = np.tile(np.repeat(counts[index], N), 2)
        r = np.tile(np.repeat(relevant[index], N), 2)
        e = row_expectation(measure, stacked, c, r, settings).reshape(2, F, N)
        return ((e[0] - e[1]) * weights[index][:, None]).ravel()

    count_matrix = np.kron(np.eye(F), np.ones((1, N)))
    def constraints_fun(x):
        return np.concatenate([count_matrix @ x - counts[index], [value(full(x)) - observed]])

    def constraints_jac(x):
        return np.vstack([count_matrix, target_grad(x)[None, :]])
    x0 = np.clip(np.repeat(counts[index] / N, N), EPSILON, 1 - EPSILON)
    bounds = [(EPSILON, 1 - EPSILON)] * (F * N)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if solver == "SLSQP":
            result = optimize.minimize(objective, x0, jac=objective_grad, method="SLSQP", bounds=bounds,
                                       constraints=[{"type": "eq", "fun": constraints_fun, "jac": constraints_jac}],
                                       options={"ftol": 1e-12, "maxiter": maxiter})
        elif solver == "trust-constr":
            constraint = optimize.NonlinearConstraint(constraints_fun, 0.0, 0.0, jac=constraints_jac,
                                                      hess=optimize.BFGS())
            result = optimize.minimize(objective, x0, jac=objective_grad, method="trust-constr", bounds=bounds,
                                       constraints=[constraint], hess=lambda x: np.diag(
                                           1 / np.clip(x, EPSILON, 1) + 1 / np.clip(1 - x, EPSILON, 1)),
                                       options={"gtol": 1e-10, "xtol": 1e-12, "maxiter": maxiter * 4})
        else:
            raise PyevalError(f"solver must be one of {', '.join(SOLVERS)}; got {solver!r}")
    x = np.clip(result.x, 0.0, 1.0)
    P = full(x)
    residual = float(np.max(np.abs(constraints_fun(x))))
    converged = bool(result.success) and residual <= tolerance
    status = str(result.message) if converged or not result.success else f"constraint residual {residual:.2e}"
    solution = Solution(P, entropy(P[index]), int(getattr(result, "nit", 0) or 0), residual, converged, status)
    if not converged and solver == "SLSQP" and fallback:
        second = solve(measure, observed, counts, relevant, weights, settings, solver="trust-constr",
                       tolerance=tolerance, maxiter=maxiter, fallback=False)
        second.status = f"SLSQP: {status}; trust-constr: {second.status}"
        if second.converged or second.residual < solution.residual:
            return second
        solution.status = second.status
    return solution


# ---------------------------------------------------------------------------------------------
# Data: binary per-intent relevance of the top N of every (run, topic)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lists:
    """rel[k, j, i]: whether the document at rank i + 1 of problem k is relevant to intent j
    (intents padded with weight 0); problems k = (run_ids[k], topic_ids[k])."""

    run_ids: tuple[str, ...]
    topic_ids: tuple[str, ...]
    relevance: np.ndarray
    relevant: np.ndarray  # K x M: R^j
    weights: np.ndarray  # K x M: φ_j = 1/M_topic (0 for padding)
    relevant_any: np.ndarray  # K: R
    any_relevance: np.ndarray  # K x N: relevant to any intent

    def inputs(self, measure: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(relevance K x M x N, counts K x M, relevant K x M, weights K x M) of a measure's form."""
        if MEASURES[measure][1]:
            rel = self.relevance.astype(float)
            return rel, rel.sum(axis=2), self.relevant.astype(float), self.weights
        rel = self.any_relevance.astype(float)[:, None, :]
        K = rel.shape[0]
        return rel, rel.sum(axis=2), self.relevant_any.astype(float)[:, None], np.ones((K, 1))


def read_lists(con: duckdb.DuckDBPyConnection, campaign_id: str, depth: int, runs: Sequence[str] | None = None,
               runs_top: int | None = None, topics_top: int | None = None,
               judgment_set: str = "official") -> Lists:
    """The top-``depth`` relevance of every run (or ``runs``) on every topic with a relevant
    document; ``topics_top``: only the topics with the most relevant documents, ``runs_top``: only
    the runs that retrieve the most relevant documents in the top ``depth`` (the study's 25 and
    30; ties by id). Relevance is that of the judgment set ``judgment_set``."""
    known = campaign_runs(con, campaign_id)
    check_judgment_set(con, campaign_id, judgment_set)
    chosen = sorted(dict.fromkeys(runs)) if runs else known
    unknown = [r for r in chosen if r not in known]
    if unknown:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, unknown))}")
    topics = con.execute(sqlfiles.read("resampling/mem_topic_relevant.sql"),
                         {"campaign_id": campaign_id, "judgment_set": judgment_set}).df()
    if topics.empty:
        under = "" if judgment_set == "official" else f" in judgment set '{judgment_set}'"
        raise PyevalError(f"campaign '{campaign_id}' has no relevant judgments{under}")
    use_internal_schema(con)  # mem_relevance reads the engine's views; con may be a cursor
    hits = con.execute(sqlfiles.read("resampling/mem_relevance.sql"),
                       {"campaign_id": campaign_id, "depth": depth, "runs": chosen, "judgment_set": judgment_set}).df()
    topic_ids = sorted(topics["topic_id"].unique())
    if topics_top:
        per_topic = topics.drop_duplicates("topic_id").set_index("topic_id")["relevant_any"]
        topic_ids = sorted(per_topic.reset_index().sort_values(["relevant_any", "topic_id"], ascending=[False, True])
                           ["topic_id"].head(topics_top))
    if runs_top:
        retrieved = (hits[hits["topic_id"].isin(topic_ids)].drop_duplicates(["run_id", "topic_id", "rank"])
                     .groupby("run_id").size().reindex(chosen, fill_value=0))
        chosen = sorted(retrieved.reset_index(name="n").sort_values(["n", "run_id"], ascending=[False, True])
                        ["run_id"].head(runs_top))
    if len(chosen) < 2:
        raise PyevalError(f"MEM needs at least 2 runs; got {len(chosen)}")
    topics = topics[topics["topic_id"].isin(topic_ids)]
    intents = {t: list(group["intent_id"]) for t, group in topics.groupby("topic_id")}
    M = max(len(v) for v in intents.values())
    t_index = {t: i for i, t in enumerate(topic_ids)}
    r_index = {r: i for i, r in enumerate(chosen)}
    j_index = {(t, j): k for t, js in intents.items() for k, j in enumerate(js)}
    T, R = len(topic_ids), len(chosen)
    relevance = np.zeros((R, T, M, depth), dtype=bool)
    hits = hits[hits["topic_id"].isin(t_index) & hits["run_id"].isin(r_index)]
    if len(hits):
        relevance[hits["run_id"].map(r_index).to_numpy(), hits["topic_id"].map(t_index).to_numpy(),
                  [j_index[(t, j)] for t, j in zip(hits["topic_id"], hits["intent_id"])],
                  hits["rank"].to_numpy() - 1] = True
    relevant = np.zeros((T, M))
    weights = np.zeros((T, M))
    for t, js in intents.items():
        rows = topics[topics["topic_id"] == t]
        relevant[t_index[t], :len(js)] = rows["relevant"].to_numpy()
        weights[t_index[t], :len(js)] = 1.0 / len(js)
    relevant_any = topics.drop_duplicates("topic_id").set_index("topic_id").loc[topic_ids, "relevant_any"].to_numpy()
    K = R * T
    return Lists(tuple(np.repeat(chosen, T)), tuple(np.tile(topic_ids, R)), relevance.reshape(K, M, depth),
                 np.tile(relevant, (R, 1)), np.tile(weights, (R, 1)), np.tile(relevant_any, R),
                 relevance.any(axis=2).reshape(K, depth))


# ---------------------------------------------------------------------------------------------
# Informativeness
# ---------------------------------------------------------------------------------------------


def pr_curve_errors(p_any: np.ndarray, actual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RMS and MAE of the inferred precision against the actual one at the ranks of the actual
    list's relevant documents (where recall changes; recall is Σ/R for both, so comparing
    precision there compares the curves), per row; NaN for a list without relevant documents."""
    ranks = np.arange(1, p_any.shape[1] + 1)
    predicted = np.cumsum(p_any, axis=1) / ranks
    observed = np.cumsum(actual, axis=1) / ranks
    points = actual.astype(bool)
    count = points.sum(axis=1)
    error = np.where(points, predicted - observed, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rms = np.where(count > 0, np.sqrt((error ** 2).sum(axis=1) / np.maximum(count, 1)), np.nan)
        mae = np.where(count > 0, np.abs(error).sum(axis=1) / np.maximum(count, 1), np.nan)
    return rms, mae


def prediction_errors(predicted: np.ndarray, actual: np.ndarray) -> dict:
    """Kendall's τ (scipy.stats.kendalltau, τ_b) between predicted and actual run means, RMSR and
    MARE over the runs whose actual mean is > 0 (the others are excluded and counted)."""
    from scipy import stats

    keep = actual > 0
    excluded = int((~keep).sum())
    if keep.sum() < 2:
        return {"tau": None, "rmsr": None, "mare": None, "runs_excluded": excluded}
    relative = (predicted[keep] - actual[keep]) / actual[keep]
    tau = stats.kendalltau(predicted, actual).statistic if np.ptp(predicted) > 0 and np.ptp(actual) > 0 else np.nan
    return {"tau": None if np.isnan(tau) else float(tau), "rmsr": float(np.sqrt(np.mean(relative ** 2))),
            "mare": float(np.mean(np.abs(relative))), "runs_excluded": excluded}


@dataclass(repr=False)
class Informativeness(Displayed):
    """``solutions``: target, run_id, topic_id, observed, entropy, iterations, residual,
    converged, status, rms, mae; ``predictions``: target, predicted, tau, rmsr, mare, rms, mae;
    ``probabilities``: target -> K x M x N inferred p."""

    campaign_id: str
    solutions: pd.DataFrame
    predictions: pd.DataFrame
    probabilities: dict[str, np.ndarray] = field(repr=False)
    settings: dict = field(default_factory=dict)
    mem_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``predictions``: one row per target measure."""
        return self.predictions

    def _display_frame(self) -> pd.DataFrame:
        return self.predictions[["target", "predicted", "tau", "rmsr", "mare", "rms", "mae", "runs_excluded"]]

    def _display_note(self) -> str:
        failed = int((~self.solutions["converged"]).sum())
        return (f"{self.campaign_id}: {self.predictions['runs'].iloc[0]} runs x {self.predictions['topics'].iloc[0]} "
                f"topics, depth {self.settings.get('depth')}; {len(self.solutions)} problems, {failed} not "
                "converged") + (f"\nstored as MEM experiment {self.mem_id}" if self.mem_id is not None else "")

    def plot(self, path, title: str | None = None, dpi: float | None = None):
        """Predicted against actual run means, one row of panels per target (Ashkan & Clarke,
        WWW 2011 Figs 6-10): the measures bounded by 1 in one panel, the unbounded DCG and
        alpha-DCG in another, each with its own scale."""
        from .store import pyplot, save_figure

        plt = pyplot()
        targets = list(dict.fromkeys(self.predictions["target"]))
        means = self.settings.get("run_means", {})
        groups = [("measures in [0, 1]", lambda m: m not in UNBOUNDED)]
        if self.predictions["predicted"].isin(UNBOUNDED).any():
            groups.append(("unbounded measures", lambda m: m in UNBOUNDED))
        figure, axes = plt.subplots(len(targets), len(groups), figsize=(4.0 * len(groups), 3.8 * len(targets)),
                                    dpi=110, squeeze=False)
        for row_axes, target in zip(axes, targets):
            for axis, (group, member) in zip(row_axes, groups):
                shown = []
                for row in self.predictions[self.predictions["target"] == target].itertuples(index=False):
                    actual, predicted = means.get((target, row.predicted), (None, None))
                    if actual is None or not member(row.predicted):
                        continue
                    tau = "-" if row.tau is None or pd.isna(row.tau) else f"{row.tau:.3f}"
                    axis.scatter(actual, predicted, s=10, label=f"{row.predicted} (τ {tau})")
                    shown += [*np.ravel(actual), *np.ravel(predicted)]
                if shown:  # a perfect prediction lies on y = x (Aslam, Yilmaz & Pavlu 2005)
                    low, high = float(np.nanmin(shown)), float(np.nanmax(shown))
                    pad = 0.05 * (high - low or 1.0)
                    axis.plot([low - pad, high + pad], [low - pad, high + pad], color="grey", linestyle="--",
                              linewidth=0.8, label="y = x")
                    axis.set_xlim(low - pad, high + pad)
                    axis.set_ylim(low - pad, high + pad)
                    axis.set_aspect("equal")
                    axis.legend(fontsize=7)
                axis.set_title(f"target {target}: {group}", fontsize=9)
                axis.set_xlabel("actual mean")
                axis.set_ylabel("predicted mean")
                axis.grid(alpha=0.3)
        figure.suptitle(title or f"MEM predictions: {self.campaign_id}", fontsize=9)
        figure.tight_layout()
        save_figure(figure, path, dpi)
        return path


def _iv(targets: Sequence[str], depth: int, alpha: float, beta: float, expectation_mode: str, solver: str) -> list[str]:
    if not targets:
        raise PyevalError(f"no MEM target requested (-m; one of {', '.join(MEASURES)})")
    if depth < 1:
        raise PyevalError(f"depth must be a positive integer; got {depth}")
    if not 0 < alpha < 1 or not 0 < beta < 1:
        raise PyevalError(f"alpha and beta must lie in (0, 1); got {alpha}, {beta}")
    require_choice("expectation", expectation_mode, EXPECTATIONS)
    require_choice("solver", solver, SOLVERS)
    return list(dict.fromkeys(target_name(t) for t in targets))


def informativeness_of(lists: Lists, targets: Sequence[str], settings: Settings, *, solver: str = "SLSQP",
                       tolerance: float = 1e-8, progress: bool | None = None) -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    """Solve every (run, topic) for each target and score the inferences (no database). The
    solver's linear algebra runs on one BLAS thread: its matrices are tiny (F·N ≤ a few hundred
    unknowns), and a threaded BLAS spends several times the CPU of the solve waking its threads
    (a 10 x 10 ERR-IA case: 75 s CPU threaded, 14 s on one thread)."""
    from scipy import optimize  # noqa: F401  loaded first: the limits reach the BLAS loaded by then
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _informativeness_of(lists, targets, settings, solver=solver, tolerance=tolerance, progress=progress)


def _informativeness_of(lists: Lists, targets: Sequence[str], settings: Settings, *, solver: str,
                        tolerance: float, progress: bool | None) -> tuple[pd.DataFrame, pd.DataFrame, dict, dict]:
    K = len(lists.run_ids)
    run_ids = np.asarray(lists.run_ids)
    runs = sorted(set(lists.run_ids))
    actual_means, solutions, predictions, probabilities, run_means = {}, [], [], {}, {}
    actual_values = {}
    for measure in MEASURES:
        rel, counts, relevant, weights = lists.inputs(measure)
        actual_values[measure] = expectation(measure, rel, counts, relevant, weights, settings)
        actual_means[measure] = pd.Series(actual_values[measure]).groupby(run_ids).mean().reindex(runs).to_numpy()
    for target in targets:
        rel, counts, relevant, weights = lists.inputs(target)
        observed = actual_values[target]
        P = np.zeros_like(rel)
        rows = []
        for k in bars.bar(range(K), progress=progress, desc=f"MEM {target}", unit="list"):
            solution = solve(target, float(observed[k]), counts[k], relevant[k], weights[k], settings,
                             solver=solver, tolerance=tolerance)
            P[k] = solution.p
            rows.append((solution.entropy, solution.iterations, solution.residual, solution.converged,
                         solution.status))
        probabilities[target] = P
        p_any = 1 - np.prod(1 - P, axis=1) if MEASURES[target][1] else P[:, 0, :]
        rms, mae = pr_curve_errors(p_any, lists.any_relevance.astype(float))
        frame = pd.DataFrame(rows, columns=["entropy", "iterations", "residual", "converged", "status"])
        frame.insert(0, "target", target)
        frame.insert(1, "run_id", lists.run_ids)
        frame.insert(2, "topic_id", lists.topic_ids)
        frame.insert(3, "intents", (weights > 0).sum(axis=1) if MEASURES[target][1] else 1)
        frame.insert(4, "relevant", lists.relevant_any.astype(int))
        frame.insert(5, "relevant_retrieved", lists.any_relevance.sum(axis=1).astype(int))
        frame.insert(6, "observed", observed)
        frame["rms"], frame["mae"] = rms, mae
        solutions.append(frame)
        for other in predicted_by(target):
            _, o_counts, o_relevant, o_weights = lists.inputs(other)  # R^j_ret = Σ_i p_i^j at a solution
            guess = expectation(other, P, o_counts, o_relevant, o_weights, settings)
            predicted_means = pd.Series(guess).groupby(run_ids).mean().reindex(runs).to_numpy()
            run_means[(target, other)] = (actual_means[other], predicted_means)
            predictions.append({"target": target, "predicted": other, "runs": len(runs),
                                "topics": len(set(lists.topic_ids)),
                                **prediction_errors(predicted_means, actual_means[other]),
                                "rms": float(np.nanmean(rms)) if np.isfinite(rms).any() else None,
                                "mae": float(np.nanmean(mae)) if np.isfinite(mae).any() else None})
    return pd.concat(solutions, ignore_index=True), pd.DataFrame(predictions), probabilities, run_means


@stores_in_one_transaction
@default_judgment_set()
def informativeness(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    targets: Sequence[str],
    *,
    depth: int = 10,
    alpha: float = 0.5,
    beta: float = 0.8,
    expectation: str = "exact",
    solver: str = "SLSQP",
    tolerance: float = 1e-8,
    runs: Sequence[str] | None = None,
    runs_top: int | None = None,
    topics_top: int | None = None,
    store: bool = True,
    progress: bool | None = None,
    judgment_set: str | None = None,
) -> Informativeness:
    """MEM informativeness of each target over the campaign's runs and judged topics (the
    study: depth 10, α = 0.5, β = 0.8, 30 runs, 25 topics), relevance read from the judgment set
    ``judgment_set``. Stored in mem_solutions and mem_predictions."""
    names = _iv(targets, depth, alpha, beta, expectation, solver)
    settings = Settings(depth, alpha, beta, expectation)
    lists = read_lists(con, campaign_id, depth, runs, runs_top, topics_top, judgment_set)
    solutions, predictions, probabilities, run_means = informativeness_of(
        lists, names, settings, solver=solver, tolerance=tolerance, progress=progress)
    common = {"campaign_id": campaign_id, "depth": depth, "alpha": alpha, "beta": beta, "expectation": expectation,
              "solver": solver, "judgment_set": judgment_set}
    result = Informativeness(campaign_id, solutions, predictions, probabilities,
                             {**common, "run_means": run_means, "tolerance": tolerance})
    if store:
        sol = solutions.copy()
        for key, value in common.items():
            sol[key] = value
        pred = predictions.copy()
        for key, value in common.items():
            pred[key] = value
        pred = pred.astype({"tau": "Float64", "rmsr": "Float64", "mare": "Float64", "rms": "Float64",
                            "mae": "Float64"})
        sol = sol.astype({"rms": "Float64", "mae": "Float64"})
        result.mem_id = insert_experiment(con, SOLUTIONS_TABLE, "mem_id", sol, **{PREDICTIONS_TABLE: pred})
    return result


__all__ = [
    "MEASURES",
    "Informativeness",
    "Lists",
    "Settings",
    "Solution",
    "ap_expectation",
    "cascade_expectation",
    "entropy",
    "expectation",
    "gain_table",
    "informativeness",
    "informativeness_of",
    "pr_curve_errors",
    "predicted_by",
    "read_lists",
    "solve",
    "target_name",
]

