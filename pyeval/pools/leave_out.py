"""Leave-one-group-out (docs/pools.md section 4): for each team of a pool (or each run, with
grouping 'run'), a derived judgment set without the judged documents only that group
contributed (gloo-eval.pl, testcoll-tools; Zobel, SIGIR 1998; Buckley, Dimmick, Soboroff &
Voorhees, IRJ 2007), that group's runs evaluated under it through pyeval.evaluation.evaluate,
NIST's summary columns
(loo-summarize.pl: official, leave-out, difference, % difference, pooled mark), each run's rank
change, and Kendall's tau and tau_ap of the leave-out leaderboard against the official one.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from ..db import first_row, transaction
from ..errors import PyevalError
from ..evaluation import evaluate
from ..judgments import derive
from ..loaders import judgment_sets
from ..resampling.correlation import correlate_means
from .build import require_pool
from .coverage import GROUPINGS, unique_documents

COLUMNS = ["measure", "run_id", "pooled", "left_out", "official", "leave_out", "difference", "percent_difference",
           "official_rank", "leave_out_rank", "rank_change", "removed_documents", "removed_relevant",
           "judgment_set"]


@dataclass
class LeaveOut:
    """The result of :func:`leave_out`: ``table`` (one row per measure and run, :data:`COLUMNS`)
    and ``rankings`` (per measure: runs, kendall_tau, kendall_tau_b, tau_ap, max_rank_change)."""

    campaign_id: str
    pool_name: str
    grouping: str
    table: pd.DataFrame
    rankings: pd.DataFrame

    def summary(self, measure: str | None = None) -> pd.DataFrame:
        """loo-summarize.pl's table: run (``*`` when pooled), official, leave-out, difference,
        % difference, ranks."""
        part = self.table if measure is None else self.table[self.table["measure"] == measure]
        shown = part.assign(run=part["run_id"] + part["pooled"].map({True: "*", False: ""}))
        return shown[["measure", "run", "left_out", "official", "leave_out", "difference", "percent_difference",
                      "official_rank", "leave_out_rank", "rank_change"]].reset_index(drop=True)

    def plot(self, path, measure: str):
        """Each run's mean under the official set (x) and under its leave-out set (y), y = x,
        pooled runs marked."""
        from ..resampling.store import pyplot, save_figure

        part = self.table[self.table["measure"] == measure]
        if part.empty:
            raise PyevalError(f"no leave-out result for measure {measure!r}")
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(4.8, 4.4), dpi=120)
        for pooled, marker, label in ((True, "o", "pooled run"), (False, "x", "not pooled")):
            rows = part[part["pooled"] == pooled]
            if len(rows):
                axes.scatter(rows["official"], rows["leave_out"], s=18, marker=marker, label=label)
        low = float(min(part["official"].min(), part["leave_out"].min()))
        high = float(max(part["official"].max(), part["leave_out"].max()))
        axes.plot([low, high], [low, high], color="grey", linewidth=1, linestyle="--", label="y = x")
        axes.set_xlabel(f"{measure}, official judgments")
        axes.set_ylabel(f"{measure}, leave-one-{self.grouping}-out")
        stats = self.rankings[self.rankings["measure"] == measure]
        tau = stats["kendall_tau"].iloc[0] if len(stats) else float("nan")
        axes.set_title(f"{self.campaign_id}, pool {self.pool_name}: Kendall's tau {tau:.3f}", fontsize=9)
        axes.legend(fontsize=8)
        axes.grid(alpha=0.3)
        save_figure(figure, path)
        return path


def set_name(pool_name: str, grouping: str, group: str, parent: str = "official") -> str:
    """The derived set leaving ``group`` out of ``parent``: ``<pool>.without-<grouping>.<group>``
    (``<pool>.<parent>.without-...`` for a parent other than official; characters a set name
    cannot hold become ``_``)."""
    stem = pool_name if parent == "official" else f"{pool_name}.{parent}"
    return f"{stem}.without-{grouping}.{re.sub(r'[^A-Za-z0-9_.:+-]', '_', group)}"[:100]


def leave_out(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    pool_name: str,
    measures: Sequence[str],
    *,
    grouping: str = "team",
    judgment_set: str = "official",
    runs: Sequence[str] | None = None,
    teams: Sequence[str] | None = None,
    store: bool = True,
) -> LeaveOut:
    """Leave each group of pool ``pool_name`` out of ``judgment_set`` in turn and evaluate that
    group's runs (``runs``, default every run of the campaign) under the derived set (one set per
    group with unique judged documents, stored with its parent and parameters); runs of a group
    that contributed no unique judged document keep their official values. ``teams``: leave out
    only these groups (teams, or runs with grouping 'run'); the other runs keep their official
    values. Stored in
    pool_leave_out and pool_leave_out_rankings with ``store``."""
    pool = require_pool(con, campaign_id, pool_name)
    if grouping not in GROUPINGS:
        raise PyevalError(f"grouping must be one of {', '.join(GROUPINGS)}; got {grouping!r}")
    if not measures:
        raise PyevalError("name at least one measure (-m AP)")
    judgment_sets.require_set(con, campaign_id, judgment_set)
    keys = {"c": campaign_id, "p": pool_name}
    pooled = dict(con.execute("select run_id, team from pool_runs where campaign_id = $c and pool_name = $p", keys)
                  .fetchall())
    team_of = dict(con.execute("select run_id, team from runs where campaign_id = $c", {"c": campaign_id}).fetchall())
    if grouping == "team":
        teamless = sorted(r for r, t in pooled.items() if t is None)
        if teamless:
            raise PyevalError(f"pooled run {teamless[0]!r} of pool '{pool_name}' has no team; give every pooled run "
                              "a team (pyeval annotate --team) or leave runs out one by one (--by run)")
    evaluated = list(dict.fromkeys(runs)) if runs else sorted(team_of)
    missing = [r for r in evaluated if r not in team_of]
    if missing:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, missing))}")
    group_of = {r: (team_of[r] if grouping == "team" else r) for r in evaluated}
    if teams:
        known = set(team_of.values()) if grouping == "team" else set(team_of)
        unknown = [t for t in teams if t not in known]
        if unknown:
            raise PyevalError(f"campaign '{campaign_id}' has no {grouping} {unknown[0]!r}; its {grouping}s: "
                              f"{', '.join(sorted(k for k in known if k is not None))}")
    left_out_groups = sorted({g for g in group_of.values() if g is not None and (not teams or g in set(teams))})
    unique = unique_documents(con, campaign_id, pool_name, judgment_set=judgment_set, grouping=grouping)
    official = evaluate(con, campaign_id, list(measures), runs=evaluated, judgment_set=judgment_set,
                        ordering=pool["ordering"], store=False).means
    names = list(dict.fromkeys(official["measure"]))
    parts = []
    with transaction(con):
        for group in left_out_groups:
            members = [r for r in evaluated if group_of[r] == group]
            removed = unique[unique["group_name"] == group]
            row = {"left_out": group, "removed_documents": len(removed),
                   "removed_relevant": int((removed["level"] > 0).sum())}
            if removed.empty:
                means = official[official["run_id"].isin(members)].assign(judgment_set=judgment_set)
            else:
                name = set_name(pool_name, grouping, group, judgment_set)
                _derive(con, campaign_id, name, judgment_set, removed, pool_name, grouping, group)
                means = evaluate(con, campaign_id, list(measures), runs=members, judgment_set=name,
                                 ordering=pool["ordering"], store=False).means.assign(judgment_set=name)
            parts.append(means.assign(**row))
        leave = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
            columns=["run_id", "measure", "value", "judgment_set", "left_out", "removed_documents", "removed_relevant"])
        table, rankings = _tables(official, leave, evaluated, set(pooled), names)
        if store:
            _store(con, campaign_id, pool_name, grouping, table, rankings)
    return LeaveOut(campaign_id, pool_name, grouping, table, rankings)


def _derive(con, campaign_id: str, name: str, parent: str, removed: pd.DataFrame, pool_name: str, grouping: str,
            group: str) -> None:
    """Store (or, when it is a leave-out set of this pool, replace) the set ``name``: ``parent``
    minus ``removed``; its parameters name the pool and the group."""
    description = f"{parent} without the judged documents only {grouping} {group} contributed to pool {pool_name}"
    row = first_row(con, "select derivation, description from judgment_sets where campaign_id = $c and "
                    "judgment_set = $s", {"c": campaign_id, "s": name})
    if row is not None and (row[0] != "minus" or row[1] != description):
        raise PyevalError(f"campaign '{campaign_id}' has a judgment set '{name}' that is not this pool's leave-out "
                          "set; rename or drop it")
    derive(con, campaign_id, name, "minus", [parent], excluded=removed[["topic_id", "doc_id"]],
           description=description, replace=row is not None)
    parameters = {"excluded_documents": int(len(removed)), "pool": pool_name, "grouping": grouping, "left_out": group}
    con.execute("update judgment_sets set parameters = $j where campaign_id = $c and judgment_set = $s",
                {"j": json.dumps(parameters), "c": campaign_id, "s": name})


def _ranks(values: pd.Series) -> pd.Series:
    return values.rank(ascending=False, method="min").astype("Int64")


def _tables(official: pd.DataFrame, leave: pd.DataFrame, runs: list[str], pooled: set[str], measures: list[str]):
    rows, stats = [], []
    for measure in measures:
        base = official[official["measure"] == measure].set_index("run_id")["value"]
        part = leave[leave["measure"] == measure].set_index("run_id")
        frame = pd.DataFrame({"run_id": [r for r in runs if r in base.index]})
        frame["measure"] = measure
        frame["official"] = frame["run_id"].map(base).astype(float)
        frame["leave_out"] = frame["run_id"].map(part["value"]).astype(float)
        no_group = frame["leave_out"].isna()  # a run without a team (grouping team): nothing to leave out
        frame.loc[no_group, "leave_out"] = frame.loc[no_group, "official"]
        frame["left_out"] = frame["run_id"].map(part["left_out"])
        frame["judgment_set"] = frame["run_id"].map(part["judgment_set"])
        frame["removed_documents"] = frame["run_id"].map(part["removed_documents"]).fillna(0).astype(int)
        frame["removed_relevant"] = frame["run_id"].map(part["removed_relevant"]).fillna(0).astype(int)
        frame["pooled"] = frame["run_id"].isin(pooled)
        frame["difference"] = frame["leave_out"] - frame["official"]
        nonzero = frame["official"].where(frame["official"] != 0)
        frame["percent_difference"] = 100 * frame["difference"] / nonzero  # loo-summarize.pl's %Diff, in percent
        frame["official_rank"] = _ranks(frame["official"])
        frame["leave_out_rank"] = _ranks(frame["leave_out"])
        frame["rank_change"] = frame["leave_out_rank"] - frame["official_rank"]
        rows.append(frame[COLUMNS])
        ranking = {"measure": measure, "runs": len(frame), "kendall_tau": None, "kendall_tau_b": None, "tau_ap": None,
                   "max_rank_change": int(frame["rank_change"].abs().max()) if len(frame) else None}
        if len(frame) >= 2:
            result = correlate_means(frame["official"].to_numpy(), frame["leave_out"].to_numpy(),
                                     list(frame["run_id"]))
            ranking.update(kendall_tau=result.tau, kendall_tau_b=result.tau_b, tau_ap=result.tau_ap)
        stats.append(ranking)
    return pd.concat(rows, ignore_index=True), pd.DataFrame(stats)


def _store(con, campaign_id: str, pool_name: str, grouping: str, table: pd.DataFrame, rankings: pd.DataFrame) -> None:
    keys = {"c": campaign_id, "p": pool_name, "g": grouping}
    con.register("leave_out_frame", table)
    con.register("leave_out_rankings_frame", rankings)
    try:
        for target, frame in (("pool_leave_out", "leave_out_frame"),
                              ("pool_leave_out_rankings", "leave_out_rankings_frame")):
            con.execute(f"delete from {target} where campaign_id = $c and pool_name = $p and grouping = $g and "
                        f"measure in (select measure from {frame})", keys)
        con.execute(
            "insert into pool_leave_out (campaign_id, pool_name, grouping, measure, run_id, left_out, judgment_set, "
            "pooled, official, leave_out, difference, percent_difference, official_rank, leave_out_rank, rank_change, "
            "removed_documents, removed_relevant) select $c, $p, $g, measure, run_id, left_out, judgment_set, pooled, "
            "official, leave_out, difference, percent_difference, official_rank, leave_out_rank, rank_change, "
            "removed_documents, removed_relevant from leave_out_frame", keys)
        con.execute(
            "insert into pool_leave_out_rankings (campaign_id, pool_name, grouping, measure, runs, kendall_tau, "
            "kendall_tau_b, tau_ap, max_rank_change) select $c, $p, $g, measure, runs, kendall_tau, kendall_tau_b, "
            "tau_ap, max_rank_change from leave_out_rankings_frame", keys)
    finally:
        con.unregister("leave_out_frame")
        con.unregister("leave_out_rankings_frame")
