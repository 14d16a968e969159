"""Leave-one-group-out (docs/pools.md section 4): for each team of a pool (or each run, with
grouping 'run'), a derived judgment set without the judged documents only that group
contributed (gloo-eval.pl, testcoll-tools; Zobel, SIGIR 1998; Buckley, Dimmick, Soboroff &
Voorhees, IRJ 2007), that group's runs evaluated under it through pyeval.core.evaluation.evaluate,
NIST's summary columns
(loo-summarize.pl: official, leave-out, difference, % difference, pooled mark), each run's rank
change, and Kendall's tau and tau_ap of the leave-out leaderboard against the official one.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from ..display import Displayed
from pyeval.core import sqlfiles
from pyeval.core.db import default_judgment_set, first_row, transaction
from ..errors import PyevalError, require_choice
from ..loaders import judgment_sets
from .build import require_pool
from .coverage import GROUPINGS, unique_documents

if TYPE_CHECKING:  # pandas and the judgments package load when a leave-out runs (no scipy: rank_agreement)
    import pandas as pd

COLUMNS = ["measure", "run_id", "pooled", "left_out", "official", "leave_out", "difference", "percent_difference",
           "official_rank", "leave_out_rank", "rank_change", "removed_documents", "removed_relevant",
           "judgment_set", "official_evaluation_id"]


#: The columns of :meth:`LeaveOut.summary` and ``rankings`` that are whole numbers (printed so).
RANK_COLUMNS = ("official_rank", "leave_out_rank", "rank_change", "runs", "max_rank_change")


@dataclass(repr=False)
class LeaveOut(Displayed):
    """The result of :func:`leave_out`: ``table`` (one row per measure and run, :data:`COLUMNS`)
    and ``rankings`` (per measure: runs, kendall_tau, kendall_tau_b, tau_ap, max_rank_change)."""

    campaign_id: str
    pool_name: str
    grouping: str
    table: pd.DataFrame
    rankings: pd.DataFrame

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure and run."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.summary()

    def _display_note(self) -> str:
        return f"leave-one-{self.grouping}-out, pool {self.pool_name} ({self.campaign_id}); * pooled runs"

    def _display_options(self) -> dict:
        return {"integer_columns": RANK_COLUMNS}

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


@default_judgment_set()
def leave_out(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    pool_name: str,
    measures: Sequence[str],
    *,
    grouping: str = "team",
    judgment_set: str | None = None,
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
    require_choice("grouping", grouping, GROUPINGS)
    if not measures:
        raise PyevalError("name at least one measure (-m AP)")
    judgment_sets.require_set(con, campaign_id, judgment_set)
    keys = {"c": campaign_id, "p": pool_name}
    pooled = dict(con.execute("select run_id, team from pool_runs where campaign_id = $c and pool_name = $p", keys)
                  .fetchall())
    team_of = dict(con.execute("select run_id, team from runs where campaign_id = $c", {"c": campaign_id}).fetchall())
    evaluated = list(dict.fromkeys(runs)) if runs else sorted(team_of)
    missing = [r for r in evaluated if r not in team_of]
    if missing:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, missing))}")
    # a run without a team is a group of its own, named by the run (coalesce(team, run_id), as
    # the pool's documents record their teams: sql/pools/pool_candidates.sql)
    group_by_run = {r: (t if grouping == "team" and t is not None else r) for r, t in team_of.items()}
    group_of = {r: group_by_run[r] for r in evaluated}
    if teams:
        known = set(group_by_run.values())
        unknown = [t for t in teams if t not in known]
        if unknown:
            raise PyevalError(f"campaign '{campaign_id}' has no {grouping} {unknown[0]!r}; its {grouping}s: "
                              f"{', '.join(sorted(k for k in known if k is not None))}")
    left_out_groups = sorted({g for g in group_of.values() if g is not None and (not teams or g in set(teams))})
    import pandas as pd

    from pyeval.core.evaluation import evaluate

    unique = unique_documents(con, campaign_id, pool_name, judgment_set=judgment_set, grouping=grouping)
    official = official_means(con, campaign_id, measures, evaluated, judgment_set, pool["ordering"])
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
            parts.append(means[["run_id", "measure", "value", "judgment_set"]].assign(**row))
        leave = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
            columns=["run_id", "measure", "value", "judgment_set", "left_out", "removed_documents", "removed_relevant"])
        table, rankings = _tables(official, leave, evaluated, set(pooled), names)
        if store:
            _store(con, campaign_id, pool_name, grouping, table, rankings)
    return LeaveOut(campaign_id, pool_name, grouping, table, rankings)


def measure_names(measures: Sequence[str]) -> list[str]:
    """The names of the measures a leave-out reports (the stored ones asked for, in order)."""
    from pyeval.core.evaluation import parse_requested

    return [str(m) for m in parse_requested(measures) if m.definition.storable]


def official_means(con: duckdb.DuckDBPyConnection, campaign_id: str, measures: Sequence[str], runs: Sequence[str],
                   judgment_set: str, ordering: str) -> pd.DataFrame:
    """Each run's mean of each measure under ``judgment_set`` (``run_id, measure, value,
    evaluation_id``): from the latest current stored evaluation made as a leave-out evaluates
    (sql/pools/pool_official_means.sql), the runs without one evaluated now (``evaluation_id``
    null). Rows by measure in the order asked, then run."""
    import pandas as pd

    from pyeval.core.evaluation import evaluate

    names = measure_names(measures)
    path = "pools/pool_official_means.sql"
    stored = con.execute(sqlfiles.read(path), sqlfiles.model(path).bind(
        {"campaign_id": campaign_id, "judgment_set": judgment_set, "ordering": ordering, "runs": list(runs),
         "measures": names})).df()
    complete = set(stored.groupby("run_id")["measure"].nunique().loc[lambda n: n == len(names)].index)
    missing = [r for r in runs if r not in complete]
    parts = [stored[stored["run_id"].isin(complete)]]
    if missing:
        fresh = evaluate(con, campaign_id, list(measures), runs=missing, judgment_set=judgment_set, ordering=ordering,
                         store=False).means
        parts.append(fresh[["run_id", "measure", "value"]].assign(evaluation_id=pd.NA))
    frame = pd.concat(parts, ignore_index=True)
    frame["evaluation_id"] = frame["evaluation_id"].astype("Int64")
    order = {name: i for i, name in enumerate(names)}
    frame = frame[frame["measure"].isin(order)]
    return frame.sort_values(["measure", "run_id"], key=lambda s: s.map(order) if s.name == "measure" else s,
                             kind="stable").reset_index(drop=True)


def _derive(con, campaign_id: str, name: str, parent: str, removed: pd.DataFrame, pool_name: str, grouping: str,
            group: str) -> None:
    """Store (or, when it is a leave-out set of this pool, replace) the set ``name``: ``parent``
    minus ``removed``; its parameters name the pool and the group."""
    description = f"{parent} without the judged documents only {grouping} {group} contributed to pool {pool_name}"
    row = first_row(con, "select derivation, description from judgment_sets where campaign_id = $c and "
                    "judgment_set = $s", {"c": campaign_id, "s": name})
    from ..judgments import derive

    if row is not None and (row[0] != "minus" or row[1] != description):
        raise PyevalError(f"campaign '{campaign_id}' has a judgment set '{name}' that is not this pool's leave-out "
                          "set; rename or drop it")
    derive(con, campaign_id, name, "minus", [parent], excluded=removed[["topic_id", "doc_id"]],
           description=description, replace=row is not None)
    parameters = {"excluded_documents": int(len(removed)), "pool": pool_name, "grouping": grouping, "left_out": group}
    # working data of the pool analysis, not a set users see by default (migration 0019)
    con.execute("update judgment_sets set parameters = $j, working_set = true where campaign_id = $c "
                "and judgment_set = $s",
                {"j": json.dumps(parameters), "c": campaign_id, "s": name})


def _tables(official: pd.DataFrame, leave: pd.DataFrame, runs: list[str], pooled: set[str], measures: list[str]):
    import pandas as pd

    from ..resampling.correlation import rank_agreement

    base = official[official["run_id"].isin(set(runs))].rename(columns={"value": "official",
                                                                        "evaluation_id": "official_evaluation_id"})
    part = leave.rename(columns={"value": "leave_out"})[["run_id", "measure", "leave_out", "left_out", "judgment_set",
                                                         "removed_documents", "removed_relevant"]]
    frame = base.merge(part, on=["run_id", "measure"], how="left")
    frame["measure"] = pd.Categorical(frame["measure"], categories=measures, ordered=True)
    frame["run_order"] = frame["run_id"].map({r: i for i, r in enumerate(runs)})
    frame = frame.sort_values(["measure", "run_order"]).reset_index(drop=True)
    frame["official"] = frame["official"].astype(float)
    frame["leave_out"] = frame["leave_out"].astype(float)
    no_group = frame["leave_out"].isna()  # a run without a team (grouping team): nothing to leave out
    frame.loc[no_group, "leave_out"] = frame.loc[no_group, "official"]
    frame["removed_documents"] = frame["removed_documents"].fillna(0).astype(int)
    frame["removed_relevant"] = frame["removed_relevant"].fillna(0).astype(int)
    frame["pooled"] = frame["run_id"].isin(pooled)
    frame["difference"] = frame["leave_out"] - frame["official"]
    nonzero = frame["official"].where(frame["official"] != 0)
    frame["percent_difference"] = 100 * frame["difference"] / nonzero  # loo-summarize.pl's %Diff, in percent
    by_measure = frame.groupby("measure", observed=True)
    frame["official_rank"] = by_measure["official"].rank(ascending=False, method="min").astype("Int64")
    frame["leave_out_rank"] = by_measure["leave_out"].rank(ascending=False, method="min").astype("Int64")
    frame["rank_change"] = frame["leave_out_rank"] - frame["official_rank"]
    frame["measure"] = frame["measure"].astype(str)
    stats = []
    for measure, rows in frame.groupby("measure", sort=False):
        ranking = {"measure": measure, "runs": len(rows), "kendall_tau": None, "kendall_tau_b": None, "tau_ap": None,
                   "max_rank_change": int(rows["rank_change"].abs().max()) if len(rows) else None}
        if len(rows) >= 2:
            tau, tau_b, tau_ap = rank_agreement(rows["official"].to_numpy(), rows["leave_out"].to_numpy(),
                                                list(rows["run_id"]))
            ranking.update(kendall_tau=tau, kendall_tau_b=tau_b, tau_ap=tau_ap)
        stats.append(ranking)
    return frame[COLUMNS], pd.DataFrame(stats, columns=["measure", "runs", "kendall_tau", "kendall_tau_b", "tau_ap",
                                                        "max_rank_change"])


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
            "removed_documents, removed_relevant, official_evaluation_id) select $c, $p, $g, measure, run_id, "
            "left_out, judgment_set, pooled, official, leave_out, difference, percent_difference, official_rank, "
            "leave_out_rank, rank_change, removed_documents, removed_relevant, official_evaluation_id "
            "from leave_out_frame", keys)
        con.execute(
            "insert into pool_leave_out_rankings (campaign_id, pool_name, grouping, measure, runs, kendall_tau, "
            "kendall_tau_b, tau_ap, max_rank_change) select $c, $p, $g, measure, runs, kendall_tau, kendall_tau_b, "
            "tau_ap, max_rank_change from leave_out_rankings_frame", keys)
    finally:
        con.unregister("leave_out_frame")
        con.unregister("leave_out_rankings_frame")
