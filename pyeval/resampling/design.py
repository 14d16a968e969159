"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal 19, 2016;
his book "Laboratory Experiments in Information Retrieval", 2018, chapter 6): docs/design.md.

σ² is the within-system variance of a measure, estimated from stored topic x run matrices:
``two-way`` the residual mean square V_E of a two-way ANOVA without replication (topics x runs;
df (n − 1)(m − 1)), ``one-way`` the pooled within-run variance (df m(n − 1)); several campaigns
pool their estimates weighted by their degrees of freedom. Then, for n topics:

- paired t-test (two-sided, α): the difference of two runs has variance σ_d² = 2σ²; the power to
  detect a true difference ``min_diff`` is P(|t'| ≥ t_{α/2}(n − 1)) for the noncentral t' with
  df n − 1 and noncentrality √n · min_diff / σ_d;
- one-way ANOVA over m systems (α): power to detect a range ``min_diff`` between the best and the
  worst system (the least favourable configuration: Δ = min_diff² / (2σ²), λ = nΔ) is
  P(F' ≥ F_α(m − 1, m(n − 1))) for the noncentral F' with noncentrality λ;
- confidence interval of the mean difference of two runs (1 − α): its expected half-width
  t_{α/2}(n − 1) · E[s_d] / √n must not exceed ``min_diff`` (E[s_d] = σ_d √(2/φ) Γ((φ+1)/2)/Γ(φ/2)).

``method="exact"`` uses scipy's noncentral t and F (and the exact E[s_d]); ``"normal"`` uses the
normal approximations of Sakai's Excel sheets (Nagata's), to compare with his tables. The topics
required is the smallest n (from 2) whose power reaches 1 − β (CI: whose half-width fits).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import judgment_set_or_default
from ..display import Displayed
from ..errors import PyevalError, require_choice
from .matrix import ScoreMatrix, canonical_measure, score_matrix, scored_runs
from .risk import DEFAULT_JUDGMENTS, check_judgments
from .stats import residual_variance
from .. import vocabulary
from ..vocabulary import names

DESIGNS = names(vocabulary.DESIGNS)
METHODS = names(vocabulary.DESIGN_METHODS)
VARIANCE_METHODS = names(vocabulary.VARIANCE_METHODS)
#: The largest topic set size searched.
MAX_TOPICS = vocabulary.MAX_DESIGN_TOPICS


def variance_estimate(X: np.ndarray, method: str = "two-way") -> tuple[float, int]:
    """(σ², df) of a topic x run matrix: V_E of the two-way ANOVA without replication, or the
    pooled within-run variance of the one-way ANOVA."""
    X = np.asarray(X, dtype=float)
    n, m = X.shape
    if method == "two-way":
        return residual_variance(X), (n - 1) * (m - 1)
    if method == "one-way":
        df = m * (n - 1)
        return float(((X - X.mean(axis=0)) ** 2).sum() / df), df
    raise PyevalError(f"variance method must be one of {', '.join(VARIANCE_METHODS)}; got {method!r}")


def pooled_variance(estimates: Sequence[tuple[float, int]]) -> tuple[float, int]:
    """Σ φ_k σ²_k / Σ φ_k over campaigns (Sakai IRJ 2016's pooling), with df Σ φ_k."""
    df = sum(d for _, d in estimates)
    return float(sum(v * d for v, d in estimates) / df), int(df)


def _n(n) -> np.ndarray:
    return np.asarray(n, dtype=float)


def paired_t_power(n, min_diff: float, variance: float, alpha: float = 0.05, method: str = "exact") -> np.ndarray:
    """Power of the two-sided paired t-test with n topics for a true difference ``min_diff``."""
    from scipy import stats as sps  # imported here: importing pyeval.resampling needs no scipy.stats

    n = _n(n)
    phi = n - 1
    lam = np.sqrt(n) * min_diff / np.sqrt(2 * variance)
    w = sps.t.ppf(1 - alpha / 2, phi)
    if method == "exact":
        return sps.nct.sf(w, phi, lam) + sps.nct.cdf(-w, phi, lam)
    if method == "normal":  # Sakai's samplesizeTTEST2 (Nagata's approximation of the noncentral t)
        scale = np.sqrt(1 + w ** 2 / (2 * phi))
        shrink = 1 - 1 / (4 * phi)
        return sps.norm.cdf((-w * shrink - lam) / scale) + 1 - sps.norm.cdf((w * shrink - lam) / scale)
    raise PyevalError(f"method must be one of {', '.join(METHODS)}; got {method!r}")


def anova_power(n, systems: int, min_range: float, variance: float, alpha: float = 0.05,
                method: str = "exact") -> np.ndarray:
    """Power of the one-way ANOVA F-test over ``systems`` systems with n topics each, for a true
    range ``min_range`` (least favourable configuration: Δ = D²/(2σ²), λ = nΔ)."""
    from scipy import stats as sps

    n = _n(n)
    phi_a, phi_e = systems - 1, systems * (n - 1)
    lam = n * min_range ** 2 / (2 * variance)
    w = sps.f.ppf(1 - alpha, phi_a, phi_e)
    if method == "exact":
        return sps.ncf.sf(w, phi_a, phi_e, lam)
    if method == "normal":  # Sakai's samplesizeANOVA2 (Nagata's approximation of the noncentral F)
        c_a = (phi_a + 2 * lam) / (phi_a + lam)
        phi_star = (phi_a + lam) ** 2 / (phi_a + 2 * lam)
        u = ((np.sqrt(w / phi_e) * np.sqrt(2 * phi_e - 1) - np.sqrt(c_a / phi_a) * np.sqrt(2 * phi_star - 1))
             / np.sqrt(c_a / phi_a + w / phi_e))
        return 1 - sps.norm.cdf(u)
    raise PyevalError(f"method must be one of {', '.join(METHODS)}; got {method!r}")


def ci_half_width(n, variance: float, alpha: float = 0.05, method: str = "exact") -> np.ndarray:
    """Expected half-width of the 1 − α CI of the mean difference of two runs over n topics."""
    from scipy import special
    from scipy import stats as sps

    n = _n(n)
    phi = n - 1
    t = sps.t.ppf(1 - alpha / 2, phi)
    sigma_d = np.sqrt(2 * variance)
    if method == "exact":
        expected_s = sigma_d * np.sqrt(2 / phi) * np.exp(special.gammaln((phi + 1) / 2) - special.gammaln(phi / 2))
    elif method == "normal":  # Sakai's samplesizeCI2: E[s] ≈ σ(1 − 1/(4φ))
        expected_s = sigma_d * (1 - 1 / (4 * phi))
    else:
        raise PyevalError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    return t * expected_s / np.sqrt(n)


def _check(alpha: float, beta: float | None, min_diff: float, variance: float, systems: int | None,
           design: str, method: str) -> None:
    require_choice("design", design, DESIGNS)
    require_choice("method", method, METHODS)
    if not 0 < alpha < 1:
        raise PyevalError(f"alpha must lie strictly between 0 and 1; got {alpha:g}")
    if design != "ci" and (beta is None or not 0 < beta < 1):
        raise PyevalError(f"beta must lie strictly between 0 and 1; got {beta}")
    if not (np.isfinite(min_diff) and min_diff > 0):
        raise PyevalError(f"the minimum detectable difference (or half-width) must be positive; got {min_diff:g}")
    if design == "anova" and (systems is None or systems < 2):
        raise PyevalError(f"the ANOVA design needs the number of systems compared, at least 2; got {systems}")
    if not (np.isfinite(variance) and variance > 0):
        raise PyevalError(f"the variance estimate must be positive; got {variance:g}")


def _criterion(n, design: str, min_diff: float, variance: float, alpha: float, beta: float | None,
               systems: int | None, method: str) -> np.ndarray:
    """True where n topics suffice."""
    if design == "paired-t":
        return paired_t_power(n, min_diff, variance, alpha, method) >= 1 - beta
    if design == "anova":
        return anova_power(n, systems, min_diff, variance, alpha, method) >= 1 - beta
    return ci_half_width(n, variance, alpha, method) <= min_diff


def topics_required(design: str, min_diff: float, variance: float, *, alpha: float = 0.05, beta: float | None = 0.2,
                    systems: int | None = None, method: str = "exact") -> int | None:
    """The smallest n >= 2 meeting the design (None: none up to MAX_TOPICS). Vectorised over n in
    blocks; the criteria are monotone in n."""
    _check(alpha, beta, min_diff, variance, systems, design, method)
    start = 2
    while start <= MAX_TOPICS:
        block = np.arange(start, min(start * 4, MAX_TOPICS + 1))
        ok = _criterion(block, design, min_diff, variance, alpha, beta, systems, method)
        if ok.any():
            return int(block[np.argmax(ok)])
        start = int(block[-1]) + 1
    return None


def achieved(design: str, n: int, min_diff: float, variance: float, *, alpha: float = 0.05, beta: float | None = 0.2,
             systems: int | None = None, method: str = "exact") -> tuple[float | None, float]:
    """(power at n for min_diff, the difference detectable at n with power 1 − β); for the CI
    design (None, the expected half-width at n)."""
    from scipy import optimize

    if design == "ci":
        return None, float(ci_half_width(n, variance, alpha, method))
    power = (paired_t_power(n, min_diff, variance, alpha, method) if design == "paired-t"
             else anova_power(n, systems, min_diff, variance, alpha, method))

    def gap(d: float) -> float:
        p = (paired_t_power(n, d, variance, alpha, method) if design == "paired-t"
             else anova_power(n, systems, d, variance, alpha, method))
        return float(p) - (1 - beta)

    high = np.sqrt(variance)
    while gap(high) < 0 and high < 1e6:
        high *= 2
    detectable = optimize.brentq(gap, 1e-12, high, xtol=1e-12) if gap(1e-12) < 0 < gap(high) else float("nan")
    return float(power), float(detectable)


@dataclass(repr=False)
class TopicSetDesign(Displayed):
    """``table``: one row per (measure, design): the variance estimate, the topics required, and
    the power and detectable difference at the current topic count; ``design_id`` when stored."""

    campaign_ids: tuple[str, ...]
    judgment_set: str
    table: pd.DataFrame
    settings: dict = field(default_factory=dict)
    design_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure and design."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table[["measure", "design", "method", "variance", "variance_df", "alpha", "beta", "min_diff",
                           "systems", "topics_required", "current_topics", "achieved_power", "detectable_at_current"]]

    def _display_note(self) -> str:
        return (f"stored as topic set design {self.design_id}" if self.design_id is not None else "")

    def curve(self, differences: Sequence[float], design: str = "paired-t") -> pd.DataFrame:
        """n required against the minimum detectable difference, per measure (for the plot)."""
        rows = []
        for row in self.table[self.table["design"] == design].itertuples(index=False):
            for d in differences:
                rows.append({"measure": row.measure, "min_diff": d, "topics_required": topics_required(
                    design, d, row.variance, alpha=row.alpha, beta=row.beta,
                    systems=None if pd.isna(row.systems) else int(row.systems), method=row.method)})
        return pd.DataFrame(rows)

    def plot(self, path, differences: Sequence[float] | None = None, design: str = "paired-t") -> None:
        """Topics required (y, log scale) against the minimum detectable difference (x), one line
        per measure."""
        from .store import pyplot, save_figure

        differences = list(differences) if differences is not None else list(np.round(np.arange(0.02, 0.205, 0.01), 2))
        if not (self.table["design"] == design).any():  # plot the design that was computed
            design = str(self.table["design"].iloc[0])
        curve = self.curve(differences, design)
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(6, 4))
        for measure, rows in curve.groupby("measure", sort=False):
            axes.plot(rows["min_diff"], rows["topics_required"], marker="o", markersize=3, label=measure)
        axes.set_yscale("log")
        axes.set_xlabel({"anova": "minimum detectable range", "ci": "confidence interval half-width"}.get(
            design, "minimum detectable difference"))
        axes.set_ylabel("topics required")
        first = self.table.iloc[0]
        beta = "" if pd.isna(first["beta"]) else f", beta {first['beta']:g}"
        axes.set_title(f"{design}: alpha {first['alpha']:g}{beta} ({', '.join(self.campaign_ids)})")
        axes.legend()
        save_figure(figure, path)


def design_matrices(con: duckdb.DuckDBPyConnection, campaign_ids: Sequence[str], measure: str,
                    judgments: str = DEFAULT_JUDGMENTS) -> list[ScoreMatrix]:
    """Each campaign's matrix of ``measure`` under the judgment set ``judgments``; fewer than 2
    runs or 2 topics: one line."""
    matrices = []
    for campaign_id in campaign_ids:
        if len(scored_runs(con, campaign_id, canonical_measure(measure), judgments)) == 1:
            raise PyevalError(f"topic set size design needs at least 2 runs with stored scores for "
                              f"'{canonical_measure(measure)}' in campaign '{campaign_id}'; found 1")
        matrix = score_matrix(con, campaign_id, measure, judgment_set=judgments)
        if len(matrix.topic_ids) < 2:
            raise PyevalError(f"topic set size design needs at least 2 topics with stored scores for "
                              f"'{matrix.measure}' in campaign '{campaign_id}'; found {len(matrix.topic_ids)}")
        matrices.append(matrix)
    return matrices


def topic_set_design(
    con: duckdb.DuckDBPyConnection,
    campaign_ids: str | Sequence[str],
    measures: Sequence[str],
    *,
    designs: Sequence[str] = ("paired-t",),
    alpha: float = 0.05,
    beta: float = 0.2,
    min_diff: float = 0.05,
    systems: int | None = None,
    half_width: float | None = None,
    variance_method: str = "two-way",
    method: str = "exact",
    judgments: str | None = None,
    store: bool = True,
) -> TopicSetDesign:
    """Topic set sizes for each measure and design from the stored scores of one campaign (or
    pooled over several); ``min_diff`` is the paired t-test's minimum detectable difference and
    the ANOVA's minimum detectable range, ``half_width`` the CI's (default ``min_diff``);
    ``systems`` the ANOVA's m (default: the first campaign's run count). The current topic count
    is the first campaign's. Stored in ``topic_set_designs`` unless ``store`` is False."""
    from .. import __version__

    campaigns = [campaign_ids] if isinstance(campaign_ids, str) else list(dict.fromkeys(campaign_ids))
    if not campaigns:
        raise PyevalError("give at least one campaign (-C)")
    if not measures:
        raise PyevalError("no measure requested (e.g. -m AP)")
    require_choice("variance method", variance_method, VARIANCE_METHODS)
    ci_target = min_diff if half_width is None else half_width  # 0 is a (refused) half-width, not "unset"
    for design in designs:
        _check(alpha, beta, min_diff if design != "ci" else ci_target, 1.0,
               systems if design != "anova" or systems is not None else 2, design, method)
    if judgments is None:  # each campaign's default set: pooled only when they are one set
        defaults = {campaign: judgment_set_or_default(con, campaign, None) for campaign in campaigns}
        if len(set(defaults.values())) > 1:
            named = ", ".join(f"'{c}' reads '{s}'" for c, s in defaults.items())
            raise PyevalError(f"the campaigns' default judgment sets differ ({named}): name the set to pool "
                              "with --judgments (judgments=)")
        judgments = defaults[campaigns[0]]
    check_judgments(con, campaigns, judgments)
    rows = []
    for name in dict.fromkeys(canonical_measure(m) for m in measures):
        matrices = design_matrices(con, campaigns, name, judgments)
        variance, df = pooled_variance([variance_estimate(m.values, variance_method) for m in matrices])
        if not variance > 0:
            raise PyevalError(f"'{name}' has no residual variance in {', '.join(campaigns)} (every run scores alike)")
        current = len(matrices[0].topic_ids)
        m = systems if systems is not None else len(matrices[0].run_ids)
        for design in designs:
            target = ci_target if design == "ci" else min_diff
            kwargs = {"alpha": alpha, "beta": beta if design != "ci" else None,
                      "systems": m if design == "anova" else None, "method": method}
            power, detectable = achieved(design, current, target, variance, **kwargs)
            rows.append({
                "campaign_ids": campaigns, "measure": name, "judgment_set": judgments,
                "evaluation_ids": [x.evaluation_id for x in matrices], "variance_method": variance_method,
                "variance": variance, "variance_df": df, "run_count": len(matrices[0].run_ids),
                "current_topics": current, "design": design, "method": method, "alpha": alpha,
                "beta": kwargs["beta"], "min_diff": target, "systems": kwargs["systems"],
                "topics_required": topics_required(design, target, variance, **kwargs),
                "achieved_power": power, "detectable_at_current": detectable, "pyeval_version": __version__,
            })
    table = pd.DataFrame(rows)
    table["systems"] = table["systems"].astype("Int64")
    table["topics_required"] = table["topics_required"].astype("Int64")
    result = TopicSetDesign(tuple(campaigns), judgments, table,
                            {"alpha": alpha, "beta": beta, "method": method, "variance_method": variance_method})
    if store:
        from .store import insert_experiment

        result.design_id = insert_experiment(con, "topic_set_designs", "design_id", table)
    return result


@dataclass(frozen=True, repr=False)
class GStudy(Displayed):
    """Variance components of the crossed systems x topics design with one observation per cell
    (Bodoff & Li, SIGIR 2007; Urbano, Marrero & Martín, SIGIR 2013; gt4ireval's ``gstudy``):
    σ²_s = (MS_s − MS_e)/n_t, σ²_t = (MS_t − MS_e)/n_s, σ²_e = MS_e; a negative estimate is 0."""

    systems: int
    topics: int
    var_system: float
    var_topic: float
    var_residual: float
    ms_system: float
    ms_topic: float
    ms_residual: float

    def df(self) -> pd.DataFrame:
        """One row: the systems, the topics, the variance components and the mean squares."""
        import dataclasses

        return pd.DataFrame([dataclasses.asdict(self)])

    def _display_options(self) -> dict:
        return {"integer_columns": ("systems", "topics")}

    def d_study(self, topics: Sequence[int] | None = None, stability: float = 0.95) -> pd.DataFrame:
        """For each topic set size n': Eρ² = σ²_s/(σ²_s + σ²_e/n') (relative decisions), Φ =
        σ²_s/(σ²_s + (σ²_t + σ²_e)/n') (absolute), and the topics each needs to reach ``stability``."""
        sizes = np.asarray(list(topics) if topics is not None else [self.topics], dtype=float)
        if (sizes < 1).any() or not 0 < stability < 1:
            raise PyevalError("D-study topic counts must be >= 1 and the stability strictly between 0 and 1")
        s, t, e = self.var_system, self.var_topic, self.var_residual
        with np.errstate(divide="ignore", invalid="ignore"):
            erho2 = s / (s + e / sizes)
            phi = s / (s + (t + e) / sizes)
            need_erho2 = np.ceil(stability * e / (s * (1 - stability))) if s > 0 else np.nan
            need_phi = np.ceil(stability * (t + e) / (s * (1 - stability))) if s > 0 else np.nan
        return pd.DataFrame({"topics": sizes.astype(int), "Erho2": erho2, "Phi": phi, "stability": stability,
                             "topics_for_Erho2": need_erho2, "topics_for_Phi": need_phi})


def g_study(X: np.ndarray) -> GStudy:
    """The G-study of a topic x run matrix (two-way ANOVA without replication, random effects)."""
    X = np.asarray(X, dtype=float)
    n_t, n_s = X.shape
    if n_t < 2 or n_s < 2:
        raise PyevalError(f"a G-study needs at least 2 topics and 2 runs; got {n_t} x {n_s}")
    grand = X.mean()
    ss_s = n_t * ((X.mean(axis=0) - grand) ** 2).sum()
    ss_t = n_s * ((X.mean(axis=1) - grand) ** 2).sum()
    ss_e = ((X - grand) ** 2).sum() - ss_s - ss_t
    ms_s, ms_t, ms_e = ss_s / (n_s - 1), ss_t / (n_t - 1), ss_e / ((n_s - 1) * (n_t - 1))
    return GStudy(n_s, n_t, float(max(0.0, (ms_s - ms_e) / n_t)), float(max(0.0, (ms_t - ms_e) / n_s)),
                  float(max(0.0, ms_e)), float(ms_s), float(ms_t), float(ms_e))
