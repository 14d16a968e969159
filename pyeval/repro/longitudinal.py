"""`pyeval longitudinal`: the systems of a longitudinal campaign across its snapshots, as CLEF
LongEval's evaluator computes them (clef-longeval/longeval-code, evaluate/core.py: repro_eval's
RplEvaluator per snapshot against a pivot system), stored as LongEval's long rows
(``longitudinal_values``, public view ``longeval_rows``), with the stability of the system
ranking across snapshots (tau, tau_ap; docs/reproducibility.md section 4)."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import stores_in_one_transaction
from ..display import Displayed
from ..errors import PyevalError
from . import measures as formulas
from .scores import TopicScores, topic_scores

LONG_COLUMNS = ["team", "system", "run_id", "snapshot", "qrels_set", "query", "meta_measure", "measure", "value"]


@dataclass(frozen=True, repr=False)
class LongitudinalResult(Displayed):
    """``rows``: LongEval's long rows (:data:`LONG_COLUMNS`); ``rankings``: tau and tau_ap between
    the systems' ARP rankings of every two snapshots; ``snapshots`` in order, the reference
    first; ``longitudinal_id`` when stored."""

    campaign_id: str
    pivot_system: str
    snapshots: tuple[str, ...]
    rows: pd.DataFrame
    rankings: pd.DataFrame
    longitudinal_id: int | None

    def df(self) -> pd.DataFrame:
        """``rows``: LongEval's long rows."""
        return self.rows

    def _display_frame(self) -> pd.DataFrame:
        return self.summary()

    def _display_note(self) -> str:
        text = f"{self.campaign_id}: snapshots {', '.join(self.snapshots)} against pivot system {self.pivot_system}"
        return text + (f"\nstored as longitudinal experiment {self.longitudinal_id}"
                       if self.longitudinal_id is not None else "")

    def summary(self) -> pd.DataFrame:
        """One row per (system, snapshot, measure): ARP and, against the reference snapshot, ER,
        DRI, the t-test's p-value, mean ARP (LongEval's AP) and relative change (RC)."""
        overall = self.rows[self.rows["query"] == "all"]
        table = overall.pivot_table(index=["system", "snapshot", "measure"], columns="meta_measure", values="value",
                                    aggfunc="first", dropna=False).reset_index()
        order = {s: k for k, s in enumerate(self.snapshots)}
        table = table.assign(order=table["snapshot"].map(order)).sort_values(["system", "measure", "order"])
        columns = [c for c in ("ARP", "ER", "DRI", "t-test", "AP", "RC") if c in table.columns]
        return table[["system", "snapshot", "measure", *columns]].rename(
            columns={"t-test": "p_value", "AP": "mean_ARP"}).reset_index(drop=True)

    def plot(self, path, dpi: float | None = None) -> None:
        """ARP across the snapshots, one line per system, one panel per measure."""
        from ..resampling.store import pyplot, save_figure

        plt = pyplot()
        arp = self.rows[self.rows["meta_measure"] == "ARP"]
        measures = list(dict.fromkeys(arp["measure"]))
        figure, axes = plt.subplots(1, len(measures), figsize=(5 * len(measures), 3.6), squeeze=False)
        x = {s: k for k, s in enumerate(self.snapshots)}
        for axis, measure in zip(axes[0], measures):
            for system, group in arp[arp["measure"] == measure].groupby("system"):
                group = group.assign(position=group["snapshot"].map(x)).sort_values("position")
                style = dict(linewidth=2.5, color="black") if system == self.pivot_system else dict(linewidth=1)
                axis.plot(group["position"], group["value"], marker="o", label=system, **style)
            axis.set_xticks(range(len(self.snapshots)), self.snapshots)
            axis.set_xlabel("snapshot")
            axis.set_ylabel(f"ARP ({measure})")
            axis.set_title(f"{self.campaign_id}: {measure} across snapshots")
        axes[0][-1].legend(fontsize="small", loc="best")
        save_figure(figure, path, dpi=dpi)


def snapshot_runs(con: duckdb.DuckDBPyConnection, campaign_id: str) -> pd.DataFrame:
    """The campaign's snapshot runs (``run_snapshots`` with ``runs.team``), snapshots ordered by
    date (undated last) then label."""
    from ..resampling.matrix import campaign_runs

    campaign_runs(con, campaign_id)  # an unknown campaign: one line
    frame = con.execute(
        "select s.run_id, s.system, s.snapshot, s.snapshot_date, s.judgment_set, r.team "
        "from run_snapshots as s join runs as r on r.campaign_id = s.campaign_id and r.run_id = s.run_id "
        "where s.campaign_id = $c order by s.snapshot_date nulls last, s.snapshot, s.system",
        {"c": campaign_id}).df()
    if frame.empty:
        raise PyevalError(f"campaign '{campaign_id}' has no snapshot runs; record them first: "
                          f"pyeval relate -C {campaign_id} RUN --system S --snapshot LABEL")
    return frame


def _ordered_snapshots(frame: pd.DataFrame) -> list[str]:
    firsts = frame.groupby("snapshot", sort=False)["snapshot_date"].min()
    return sorted(firsts.index, key=lambda s: (pd.isna(firsts[s]), firsts[s] if not pd.isna(firsts[s]) else 0, s))


@stores_in_one_transaction
def longitudinal(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    pivot_system: str,
    measures: Sequence[str],
    *,
    reference: str | None = None,
    store: bool = True,
) -> LongitudinalResult:
    """LongEval's evaluation of every system of ``campaign_id`` (``run_snapshots``) at each
    snapshot against ``pivot_system``: per-query scores and ARP at every snapshot; against the
    ``reference`` snapshot (default: the first), ER and DRI with the pivot as baseline, the
    unpaired t-test of the system's scores, mean ARP and relative change; tau and tau_ap between
    the ARP rankings of the systems at every two snapshots. Each snapshot's runs are scored
    under its judgment set (``run_snapshots.judgment_set``; evaluated where missing)."""
    from .. import __version__
    from ..resampling.correlation import kendall_tau, tau_ap
    from ..resampling.store import insert_experiment, measure_names

    names = measure_names(measures)
    frame = snapshot_runs(con, campaign_id)
    snapshots = _ordered_snapshots(frame)
    reference = reference or snapshots[0]
    if reference not in snapshots:
        raise PyevalError(f"campaign '{campaign_id}' has no snapshot '{reference}'; its snapshots: "
                          f"{', '.join(snapshots)}")
    snapshots = [reference] + [s for s in snapshots if s != reference]
    if pivot_system not in set(frame["system"]):
        raise PyevalError(f"campaign '{campaign_id}' has no system '{pivot_system}' among its snapshot runs; "
                          f"its systems: {', '.join(sorted(set(frame['system'])))}")
    scores: dict[str, TopicScores] = {}
    for snapshot in snapshots:
        at = frame[frame["snapshot"] == snapshot]
        sets = set(at["judgment_set"].dropna())
        if len(sets) > 1 or (sets and at["judgment_set"].isna().any()):
            raise PyevalError(f"snapshot '{snapshot}' of campaign '{campaign_id}' names several judgment sets "
                              f"({', '.join(sorted(sets))}); record one for all its runs")
        scores[snapshot] = topic_scores(con, campaign_id, list(at["run_id"]), names, next(iter(sets), None),
                                        store=store)
    run_of = {(r.system, r.snapshot): r.run_id for r in frame.itertuples()}
    team_of = {r.system: (r.team if isinstance(r.team, str) else None) for r in frame.itertuples()}
    rows: list[tuple] = []

    def add(system, snapshot, query, meta, measure, value):
        rows.append((team_of[system], system, run_of[(system, snapshot)], snapshot, scores[snapshot].judgment_set,
                     query, meta, measure, value))

    systems = sorted(set(frame["system"]))
    arp: dict[tuple[str, str, str], float] = {}
    per_query = []
    for system, snapshot in itertools.product(systems, snapshots):
        if (system, snapshot) not in run_of:
            continue
        for measure in names:
            topics, values = scores[snapshot].matrix([run_of[(system, snapshot)]], measure)
            per_query.append(pd.DataFrame({
                "team": team_of[system], "system": system, "run_id": run_of[(system, snapshot)], "snapshot": snapshot,
                "qrels_set": scores[snapshot].judgment_set, "query": topics, "meta_measure": "per-query",
                "measure": measure, "value": values[:, 0]}, columns=LONG_COLUMNS))
            arp[(system, snapshot, measure)] = formulas.arp(values[:, 0]) if len(topics) else np.nan
            add(system, snapshot, "all", "ARP", measure, arp[(system, snapshot, measure)])
    for system, snapshot in itertools.product(systems, snapshots[1:]):
        pairs = [(system, reference), (pivot_system, reference), (system, snapshot), (pivot_system, snapshot)]
        if not all(pair in run_of for pair in pairs):
            continue  # LongEval skips a system (or pivot) without a run at both snapshots
        for measure in names:
            _, original = scores[reference].matrix([run_of[pairs[1]], run_of[pairs[0]]], measure)
            _, later = scores[snapshot].matrix([run_of[pairs[3]], run_of[pairs[2]]], measure)
            add(system, snapshot, "all", "ER", measure,
                formulas.effect_ratio(original[:, 0], original[:, 1], later[:, 0], later[:, 1]))
            add(system, snapshot, "all", "DRI", measure,
                formulas.delta_relative_improvement(original[:, 0], original[:, 1], later[:, 0], later[:, 1]))
            add(system, snapshot, "all", "t-test", measure, formulas.t_test(original[:, 1], later[:, 1], paired=False))
            before, after = arp[(system, reference, measure)], arp[(system, snapshot, measure)]
            add(system, snapshot, "all", "AP", measure, formulas.mean_arp(before, after))
            add(system, snapshot, "all", "RC", measure, formulas.relative_change(before, after))
    long_rows = pd.concat([*per_query, pd.DataFrame(rows, columns=LONG_COLUMNS)], ignore_index=True)
    long_rows["value"] = long_rows["value"].astype(float)
    ranking_rows = []
    for measure in names:
        for first, second in itertools.combinations(snapshots, 2):
            shared = [s for s in systems if (s, first) in run_of and (s, second) in run_of]
            a = np.array([arp[(s, first, measure)] for s in shared])
            b = np.array([arp[(s, second, measure)] for s in shared])
            tau = kendall_tau(a, b) if len(shared) >= 2 else np.nan
            ap = tau_ap(a, b, shared) if len(shared) >= 2 else np.nan
            ranking_rows.append((measure, first, second, len(shared), tau, ap))
    rankings = pd.DataFrame(ranking_rows, columns=["measure", "snapshot_1", "snapshot_2", "systems", "tau", "tau_ap"])
    longitudinal_id = None
    if store:
        experiment = pd.DataFrame([{
            "campaign_id": campaign_id, "pivot_system": pivot_system, "reference_snapshot": reference,
            "snapshots": snapshots, "systems": systems, "measures": names,
            "evaluation_ids": sorted(set().union(*(s.evaluation_ids for s in scores.values()))),
            "pyeval_version": __version__}])
        longitudinal_id = insert_experiment(con, "longitudinal_experiments", "longitudinal_id", experiment,
                                            longitudinal_values=long_rows, longitudinal_rankings=rankings)
    return LongitudinalResult(campaign_id, pivot_system, tuple(snapshots), long_rows, rankings, longitudinal_id)
