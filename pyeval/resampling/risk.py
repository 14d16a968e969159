"""Risk-sensitive evaluation over the topic x run matrix (docs/risk.md).

- URisk_α (Wang, Bennett & Collins-Thompson; TREC Web 2013-14): the mean over the c topics of
  the risk-reward values r_i = d_i if d_i >= 0 else (1 + α) d_i, d_i = run − baseline on topic i.
- TRisk_α = URisk_α / SE with SE = s/√c of the r_i (Dinçer, Macdonald & Ounis, SIGIR 2014), its
  two-sided p-value from Student's t with c − 1 degrees of freedom, and the per-topic
  (exploratory) TRisk_i = r_i / s. ``se="population"`` (default) takes s with divisor c, as both
  public TRisk codes do (rmit-ir/trisk, qpp-risk-evaluator); ``se="sample"`` takes divisor c − 1.
- ZRisk_α and GeoRisk_α (Dinçer, Macdonald & Ounis, SIGIR 2016) over the non-negative matrix
  with every run of the matrix as the baseline population: e_ij = T_i S_j / N (T_i topic sums,
  S_j run sums, N the total), z_ij = (x_ij − e_ij)/√e_ij (0 where e_ij = 0), ZRisk_α(j) =
  Σ_i z_ij weighted by (1 + α) where z_ij < 0; GeoRisk_α(j) = √(S_j/c · Φ(ZRisk_α(j)/c)).

Baselines: a run, several runs (one result each), ``mean`` (the per-topic mean of every run of
the matrix: the unbiased baseline of Dinçer et al., ECIR 2014) or ``mean:a,b`` (of the runs named).
Everything here is array arithmetic over all runs, baselines and α at once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import check_judgment_set, default_judgment_set
from ..display import Displayed
from ..errors import PyevalError, require_choice
from .matrix import ScoreMatrix, campaign_runs, canonical_measure, score_matrix, scored_runs
from .store import signs
from .. import vocabulary
from ..vocabulary import names

#: Standard-error conventions of TRisk: the divisor of the standard deviation of the r_i.
SE_CONVENTIONS = names(vocabulary.SE_CONVENTIONS)
#: The baseline name of the per-topic mean of every run of the matrix (ECIR 2014).
MEAN_BASELINE = "mean"
#: The baseline name of ZRisk / GeoRisk rows: every run of the matrix.
ALL_RUNS = "all runs"
RISK_MEASURES = ("URisk", "TRisk", "ZRisk", "GeoRisk")
DEFAULT_JUDGMENTS = "official"


@dataclass(frozen=True)
class Baseline:
    """A baseline: its name as stored and the runs whose per-topic mean it is (one for a run)."""

    name: str
    runs: tuple[str, ...]


def risk_rewards(differences: np.ndarray, alphas: Sequence[float]) -> np.ndarray:
    """r = d where d >= 0, (1 + α) d where d < 0; a leading axis per α."""
    d = np.asarray(differences, dtype=float)
    weights = 1.0 + np.asarray(alphas, dtype=float).reshape((-1,) + (1,) * d.ndim)
    return np.where(d >= 0, d, weights * d)


def trisk(differences: np.ndarray, alphas: Sequence[float], se: str = "population") -> dict[str, np.ndarray]:
    """URisk, TRisk, p-value, and the per-topic risk-rewards, exploratory TRisk and p-values.

    ``differences``: (c, ...) per-topic run − baseline differences (topics on axis 0). Returns
    arrays with a leading α axis: ``urisk``, ``trisk``, ``p_value`` (α, ...), ``rewards``,
    ``topic_trisk``, ``topic_p_value`` (α, c, ...). A zero standard deviation gives TRisk 0
    (URisk 0) or ±inf, with p-value 1 or 0.
    """
    from scipy import stats as sps  # imported here: importing pyeval.resampling needs no scipy.stats

    require_choice("standard error", se, SE_CONVENTIONS)
    rewards = risk_rewards(differences, alphas)
    c = rewards.shape[1]
    urisk = rewards.mean(axis=1)
    sd = rewards.std(axis=1, ddof=0 if se == "population" else 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, urisk / np.where(sd > 0, sd, 1.0) * np.sqrt(c), np.sign(urisk) * np.inf)
        t = np.where((sd == 0) & (urisk == 0), 0.0, t)
        topic_t = np.where(sd[:, None] > 0, rewards / np.where(sd > 0, sd, 1.0)[:, None],
                           np.sign(rewards) * np.inf)
        topic_t = np.where((sd[:, None] == 0) & (rewards == 0), 0.0, topic_t)
    df = c - 1
    return {"urisk": urisk, "trisk": t, "p_value": 2 * sps.t.sf(np.abs(t), df), "rewards": rewards,
            "topic_trisk": topic_t, "topic_p_value": 2 * sps.t.sf(np.abs(topic_t), df)}


def zrisk(X: np.ndarray, alphas: Sequence[float]) -> dict[str, np.ndarray]:
    """ZRisk_α and GeoRisk_α of every column of the non-negative topic x run matrix ``X``
    against all its columns (SIGIR 2016): ``zrisk``, ``georisk`` (α, m) and ``z`` (c, m)."""
    from scipy import stats as sps

    X = np.asarray(X, dtype=float)
    if (X < 0).any():
        raise PyevalError("ZRisk and GeoRisk need non-negative scores; the matrix has negative values")
    c = X.shape[0]
    topic_sums, run_sums, total = X.sum(axis=1), X.sum(axis=0), X.sum()
    expected = np.outer(topic_sums, run_sums) / total if total > 0 else np.zeros_like(X)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(expected > 0, (X - expected) / np.sqrt(np.where(expected > 0, expected, 1.0)), 0.0)
    weighted = risk_rewards(z, alphas)
    z_risk = weighted.sum(axis=1)
    georisk = np.sqrt(run_sums / c * sps.norm.cdf(z_risk / c))
    return {"zrisk": z_risk, "georisk": georisk, "z": z}


def parse_baselines(specs: Sequence[str]) -> list[Baseline]:
    """``NAME`` (a run), ``mean`` (every run) or ``mean:a,b`` (those runs), de-duplicated."""
    found: dict[str, Baseline] = {}
    for spec in specs:
        for part in ([spec] if spec.startswith(MEAN_BASELINE + ":") else [p for p in spec.split(",") if p]):
            part = part.strip()
            if not part:
                continue
            if part == MEAN_BASELINE:
                found[part] = Baseline(part, ())
            elif part.startswith(MEAN_BASELINE + ":"):
                runs = tuple(dict.fromkeys(r.strip() for r in part[len(MEAN_BASELINE) + 1:].split(",") if r.strip()))
                if not runs:
                    raise PyevalError(f"baseline {part!r} names no run (mean:RUN,RUN,...)")
                name = MEAN_BASELINE + ":" + ",".join(runs)
                found[name] = Baseline(name, runs)
            else:
                found[part] = Baseline(part, (part,))
    if not found:
        raise PyevalError("give at least one baseline (a run, several runs, or mean)")
    return list(found.values())


def check_alphas(alphas: Sequence[float]) -> list[float]:
    """The α values, de-duplicated in order; one outside [0, MAX_RISK_ALPHA] (or not finite) is an error."""
    from ..vocabulary import MAX_RISK_ALPHA

    values = [float(a) for a in alphas]
    if not values:
        raise PyevalError("give at least one risk alpha (e.g. 0, 1, 5, 10)")
    bad = [a for a in values if not np.isfinite(a) or not 0 <= a <= MAX_RISK_ALPHA]
    if bad:
        raise PyevalError(f"risk alpha must be a number from 0 to {MAX_RISK_ALPHA:g}; got {bad[0]:g}")
    return list(dict.fromkeys(values))


def check_judgments(con: duckdb.DuckDBPyConnection, campaign_ids: str | Sequence[str], judgments: str) -> str:
    """``judgments`` when it is a judgment set of every campaign of ``campaign_ids``; else one
    line (an unknown campaign, or an unknown set naming the sets the campaign has)."""
    for campaign_id in [campaign_ids] if isinstance(campaign_ids, str) else campaign_ids:
        campaign_runs(con, campaign_id)
        check_judgment_set(con, campaign_id, judgments)
    return judgments


def risk_matrix(con: duckdb.DuckDBPyConnection, campaign_id: str, measure: str,
                baselines: Sequence[Baseline] = (), judgments: str = DEFAULT_JUDGMENTS) -> ScoreMatrix:
    """The matrix of every run with scores of ``measure`` stored under the judgment set
    ``judgments``; a baseline run not in the campaign or without scores, fewer than 2 runs or 2
    topics: one line each."""
    known = campaign_runs(con, campaign_id)
    check_judgment_set(con, campaign_id, judgments)
    name = canonical_measure(measure)
    for baseline in baselines:
        missing = [r for r in baseline.runs if r not in known]
        if missing:
            raise PyevalError(f"baseline run {missing[0]!r} is not a run of campaign '{campaign_id}'")
    scored = scored_runs(con, campaign_id, name, judgments)
    if len(scored) == 1:
        raise PyevalError(f"risk measures need at least 2 runs with stored scores for '{name}' in campaign "
                          f"'{campaign_id}'; found 1")
    matrix = score_matrix(con, campaign_id, name, judgment_set=judgments)
    for baseline in baselines:
        unscored = [r for r in baseline.runs if r not in matrix.run_ids]
        if unscored:
            raise PyevalError(f"baseline run {unscored[0]!r} of campaign '{campaign_id}' has no stored scores "
                              f"for measure '{name}'")
    if len(matrix.topic_ids) < 2:
        raise PyevalError(f"risk measures need at least 2 topics with stored scores for '{name}' in campaign "
                          f"'{campaign_id}'; found {len(matrix.topic_ids)}")
    return matrix


def baseline_values(matrix: ScoreMatrix, baselines: Sequence[Baseline]) -> np.ndarray:
    """(c, k): each baseline's per-topic value (a run's column, or the mean of its runs' columns)."""
    position = {r: j for j, r in enumerate(matrix.run_ids)}
    columns = []
    for baseline in baselines:
        runs = baseline.runs or matrix.run_ids
        columns.append(matrix.values[:, [position[r] for r in runs]].mean(axis=1))
    return np.column_stack(columns)


#: The columns of counts (TRisk's wins, losses and ties over the topics): printed as integers.
COUNT_COLUMNS = ("wins", "losses", "ties")


@dataclass(repr=False)
class RiskResult(Displayed):
    """``table``: one row per (measure, baseline, α, run, risk measure): value, p_value, wins,
    losses, ties; ``topics``: one row per (measure, baseline, α, run, topic): difference,
    risk_reward, trisk (exploratory), p_value. ``risk_id`` when stored."""

    campaign_id: str
    judgment_set: str
    measures: tuple[str, ...]
    baselines: tuple[str, ...]
    alphas: tuple[float, ...]
    se: str
    table: pd.DataFrame
    topics: pd.DataFrame
    settings: dict = field(default_factory=dict)
    risk_id: int | None = None
    warnings: list[str] = field(default_factory=list)

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure, baseline, α, run and risk measure."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.wide().rename(columns={"p_value": "p"})

    def _display_note(self) -> str:
        notes = [f"warning: {note}" for note in self.warnings]
        if self.risk_id is not None:
            notes.append(f"stored as risk experiment {self.risk_id}")
        return "\n".join(notes)

    def _display_options(self) -> dict:
        return {"integer_columns": COUNT_COLUMNS}

    def wide(self) -> pd.DataFrame:
        """One row per (measure, baseline, α, run), a column per risk measure (and TRisk's p)."""
        t = self.table
        keys = ["measure", "alpha", "run_id"]
        uts = t[t["risk_measure"].isin(["URisk", "TRisk"])]
        frame = uts.pivot_table(index=keys + ["baseline"], columns="risk_measure", values="value",
                                sort=False).reset_index()
        p = uts[uts["risk_measure"] == "TRisk"][keys + ["baseline", "p_value", "wins", "losses", "ties"]]
        frame = frame.merge(p, on=keys + ["baseline"], how="left").rename(columns={"p_value": "TRisk_p"})
        zg = t[t["risk_measure"].isin(["ZRisk", "GeoRisk"])]
        if len(zg):
            zg = zg.pivot_table(index=keys, columns="risk_measure", values="value", sort=False).reset_index()
            frame = frame.merge(zg, on=keys, how="left")
        columns = ["measure", "baseline", "alpha", "run_id", "URisk", "TRisk", "TRisk_p", "ZRisk", "GeoRisk",
                   "wins", "losses", "ties"]
        return frame[[c for c in columns if c in frame]]


def risk_frames(matrix: ScoreMatrix, baselines: Sequence[Baseline], alphas: Sequence[float],
                se: str = "population") -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The result rows and per-topic rows of one measure's matrix (nothing stored)."""
    alphas = check_alphas(alphas)
    B = baseline_values(matrix, baselines)  # (c, k)
    D = matrix.values[:, :, None] - B[:, None, :]  # (c, m, k)
    result = trisk(D, alphas, se)
    a_count, c, m, k = result["rewards"].shape
    runs = np.asarray(matrix.run_ids, dtype=object)
    names = np.asarray([b.name for b in baselines], dtype=object)
    alpha_axis = np.asarray(alphas, dtype=float)
    # (α, m, k) grids for the result rows
    A, R, K = np.meshgrid(alpha_axis, runs, names, indexing="ij")
    sign = signs(D)  # wins and losses up to the tolerance of docs/meta-evaluation.md 13
    wins = np.broadcast_to((sign > 0).sum(axis=0), (a_count, m, k))
    losses = np.broadcast_to((sign < 0).sum(axis=0), (a_count, m, k))
    ties = c - wins - losses
    base = {"measure": matrix.measure, "baseline": K.ravel(), "alpha": A.ravel(), "run_id": R.ravel(),
            "wins": wins.ravel(), "losses": losses.ravel(), "ties": ties.ravel()}
    frames = [pd.DataFrame({**base, "risk_measure": "URisk", "value": result["urisk"].ravel(), "p_value": np.nan}),
              pd.DataFrame({**base, "risk_measure": "TRisk", "value": result["trisk"].ravel(),
                            "p_value": result["p_value"].ravel()})]
    notes = []
    if (matrix.values < 0).any():
        notes.append(f"{matrix.measure} has negative values: ZRisk and GeoRisk (non-negative scores only) left out")
    else:
        z = zrisk(matrix.values, alphas)
        A2, R2 = np.meshgrid(alpha_axis, runs, indexing="ij")
        zrows = {"measure": matrix.measure, "baseline": ALL_RUNS, "alpha": A2.ravel(), "run_id": R2.ravel(),
                 "wins": pd.NA, "losses": pd.NA, "ties": pd.NA, "p_value": np.nan}
        frames += [pd.DataFrame({**zrows, "risk_measure": "ZRisk", "value": z["zrisk"].ravel()}),
                   pd.DataFrame({**zrows, "risk_measure": "GeoRisk", "value": z["georisk"].ravel()})]
    table = pd.concat(frames, ignore_index=True)
    for column in ("wins", "losses", "ties"):
        table[column] = table[column].astype("Int64")
    table["topic_count"] = c
    # per-topic rows: (α, c, m, k)
    A3, T3, R3, K3 = np.meshgrid(alpha_axis, np.asarray(matrix.topic_ids, dtype=object), runs, names, indexing="ij")
    topics = pd.DataFrame({
        "measure": matrix.measure, "baseline": K3.ravel(), "alpha": A3.ravel(), "run_id": R3.ravel(),
        "topic_id": T3.ravel(), "difference": np.broadcast_to(D, (a_count, c, m, k)).ravel(),
        "risk_reward": result["rewards"].ravel(), "trisk": result["topic_trisk"].ravel(),
        "p_value": result["topic_p_value"].ravel(),
    })
    return table, topics, notes


_ORDER = {name: i for i, name in enumerate(RISK_MEASURES)}


@default_judgment_set("judgments")
def risk(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    baselines: Sequence[str],
    alphas: Sequence[float] = (0.0, 1.0, 5.0, 10.0),
    *,
    se: str = "population",
    judgments: str | None = None,
    store: bool = True,
) -> RiskResult:
    """URisk, TRisk (+ p, per topic), ZRisk and GeoRisk of every run of ``campaign_id`` on each
    stored measure against each baseline and α; stored as one experiment (``risk_results``,
    ``risk_topic_values``) unless ``store`` is False. Checks everything before computing."""
    alphas = check_alphas(alphas)
    require_choice("standard error", se, SE_CONVENTIONS)
    if not measures:
        raise PyevalError("no measure requested (e.g. -m nDCG@20)")
    parsed = parse_baselines(baselines)
    names = list(dict.fromkeys(canonical_measure(m) for m in measures))
    check_judgments(con, campaign_id, judgments)
    matrices = {name: risk_matrix(con, campaign_id, name, parsed, judgments) for name in names}
    tables, topic_frames, notes = [], [], []
    for name, matrix in matrices.items():
        table, topics, more = risk_frames(matrix, parsed, alphas, se)
        table["evaluation_id"] = matrix.evaluation_id
        table["run_ids"] = [list(matrix.run_ids)] * len(table)
        tables.append(table)
        topic_frames.append(topics)
        notes += more
    table = pd.concat(tables, ignore_index=True)
    population = {name: list(matrix.run_ids) for name, matrix in matrices.items()}
    named = {b.name: list(b.runs) for b in parsed}
    table["baseline_runs"] = [population[m] if (b in (MEAN_BASELINE, ALL_RUNS)) else named[b]
                              for m, b in zip(table["measure"], table["baseline"])]
    table["headline"] = (table["alpha"] == alphas[0]) & table["baseline"].isin([parsed[0].name, ALL_RUNS])
    table = table.sort_values(["measure", "risk_measure", "baseline", "alpha", "run_id"],
                              key=lambda s: s.map(_ORDER) if s.name == "risk_measure" else s,
                              kind="stable").reset_index(drop=True)
    result = RiskResult(campaign_id, judgments, tuple(names), tuple(b.name for b in parsed), tuple(alphas), se,
                        table, pd.concat(topic_frames, ignore_index=True),
                        {"se": se, "df": "c - 1", "zero_sd": "TRisk 0 if URisk = 0 else ±inf"}, warnings=notes)
    if store:
        result.risk_id = store_risk(con, result)
    return result


def store_risk(con: duckdb.DuckDBPyConnection, result: RiskResult) -> int:
    """Insert one experiment's rows into risk_results and risk_topic_values (one transaction)."""
    from .. import __version__
    from .store import insert_experiment

    t = result.table
    rows = pd.DataFrame({
        "campaign_id": result.campaign_id, "measure": t["measure"], "judgment_set": result.judgment_set,
        "evaluation_id": t["evaluation_id"].astype("Int64"), "run_ids": t["run_ids"], "topic_count": t["topic_count"],
        "baseline": t["baseline"], "baseline_runs": t["baseline_runs"], "risk_measure": t["risk_measure"],
        "alpha": t["alpha"], "se_convention": np.where(t["risk_measure"] == "TRisk", result.se, None),
        "run_id": t["run_id"], "value": t["value"], "p_value": t["p_value"], "wins": t["wins"],
        "losses": t["losses"], "ties": t["ties"], "headline": t["headline"], "pyeval_version": __version__,
    })
    topics = result.topics.assign(campaign_id=result.campaign_id, judgment_set=result.judgment_set,
                                  se_convention=result.se)
    topics = topics[["campaign_id", "measure", "judgment_set", "baseline", "alpha", "se_convention", "run_id",
                     "topic_id", "difference", "risk_reward", "trisk", "p_value"]]
    return insert_experiment(con, "risk_results", "risk_id", rows, risk_topic_values=topics)
