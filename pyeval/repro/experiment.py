"""`pyeval repro`: how closely a reproduced (or replicated) pair of runs matches the original pair,
by repro_eval's measures (Breuer et al., SIGIR 2020; docs/reproducibility.md sections 1-3), stored
in ``repro_experiments``, ``repro_results`` and ``repro_topic_values``."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core import sqlfiles
from pyeval.vocabulary import REPRO_KINDS, names
from pyeval.core.db import stores_in_one_transaction
from ..display import Displayed
from ..errors import PyevalError
from . import measures as formulas
from .scores import TopicScores, require_runs, topic_scores

#: ``repro_experiments.kind``: same collection (paired t-test, document orders and RMSE compared)
#: or another collection (unpaired t-test; ER and DeltaRI only besides), as repro_eval's
#: RpdEvaluator and RplEvaluator (pyeval.vocabulary.REPRO_KINDS).
KINDS = names(REPRO_KINDS)


@dataclass(frozen=True, repr=False)
class ReproResult(Displayed):
    """One `pyeval repro`: ``results`` (pair, statistic, measure, value, topics) and
    ``topic_values`` (pair, statistic, measure, topic_id, value); ``repro_id`` when stored; the
    reproduced runs compared (given or recorded)."""

    kind: str
    results: pd.DataFrame
    topic_values: pd.DataFrame
    repro_id: int | None
    rep_campaign: str = ""
    rep_baseline: str = ""
    rep_advanced: str = ""

    def df(self) -> pd.DataFrame:
        """``results``: one row per pair, statistic and measure."""
        return self.results

    def _display_frame(self) -> pd.DataFrame:
        return self.table()

    def _display_note(self) -> str:
        stored = f"\nstored as repro experiment {self.repro_id}" if self.repro_id is not None else ""
        return f"{self.kind}: against {self.rep_campaign} ({self.rep_baseline}, {self.rep_advanced}){stored}"

    def table(self) -> pd.DataFrame:
        """One row per (statistic, measure) with the columns ``baseline``, ``advanced`` and
        ``effect`` (what `pyeval repro` prints); measure '' for the document-order statistics."""
        rows = self.results.assign(measure=self.results["measure"].fillna(""))
        keys = list(dict.fromkeys(zip(rows["statistic"], rows["measure"])))
        table = rows.set_index(["statistic", "measure", "pair"])["value"].unstack("pair").reindex(keys)
        columns = [c for c in ("baseline", "advanced", "effect") if c in table.columns]
        return table[columns].reset_index().rename_axis(columns=None)


def ranked_lists(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, rep_campaign_id: str,
                 rep_run_id: str, trim: int = formulas.TRIM) -> formulas.RankedLists:
    """The two runs' trimmed ranked lists on the topics both have (``sql/repro/repro_lists.sql``),
    with each document's tie group: the first and last rank of the adjacent entries sharing its
    score within its list."""
    rows = con.execute(sqlfiles.read("repro/repro_lists.sql"), {
        "campaign_id": campaign_id, "run_id": run_id, "rep_campaign_id": rep_campaign_id, "rep_run_id": rep_run_id,
        "trim": trim}).fetchnumpy()
    topic_ids, topic = np.unique(rows["topic_id"].astype(object), return_inverse=True)
    side = rows["side"].astype(object) == "original"
    rank = np.asarray(rows["rank"], dtype=np.int64)
    score = np.asarray(rows["score"], dtype=float)
    starts = np.ones(len(rank), dtype=bool)  # a new tie group: another list or another score
    starts[1:] = (side[1:] != side[:-1]) | (topic[1:] != topic[:-1]) | (score[1:] != score[:-1])
    group = np.cumsum(starts) - 1
    first = rank[starts][group]
    last = np.append(rank[np.flatnonzero(starts)[1:] - 1], rank[-1:])[group] if len(rank) else rank

    def parts(column):
        column = np.asarray(column, dtype=np.int64)
        return column[side], column[~side]

    return formulas.RankedLists(tuple(topic_ids), parts(topic), parts(rank), parts(rows["doc_code"]),
                                parts(first), parts(last))


def document_order(lists: formulas.RankedLists, depth: int = formulas.RBO_DEPTH,
                   p: float = formulas.RBO_P) -> pd.DataFrame:
    """Per-topic KTU, RBO and RBO with ties (columns ``statistic, topic_id, value``)."""
    frames = [pd.DataFrame({"statistic": name, "topic_id": list(lists.topic_ids), "value": values})
              for name, values in (("KTU", formulas.ktu(lists)), ("RBO", formulas.rbo(lists, depth, p)),
                                   ("RBO_ties", formulas.rbo_ties(lists, depth, p)))]
    return pd.concat(frames, ignore_index=True)


def _aligned(original: TopicScores, original_runs: Sequence[str], reproduced: TopicScores,
             reproduced_runs: Sequence[str], measure: str, paired: bool):
    """Per-topic arrays of the original and reproduced runs: on the union of the four runs'
    topics when paired, else each pair on its own campaign's topics; missing values are 0."""
    topics_o, x = original.matrix(original_runs, measure)
    topics_r, y = reproduced.matrix(reproduced_runs, measure)
    if paired and topics_o != topics_r:
        union = sorted(set(topics_o) | set(topics_r))
        x = pd.DataFrame(x, index=topics_o).reindex(union, fill_value=0.0).to_numpy()
        y = pd.DataFrame(y, index=topics_r).reindex(union, fill_value=0.0).to_numpy()
        topics_o = topics_r = union
    return topics_o, x, topics_r, y


def _score_rows(measure: str, original: np.ndarray, reproduced: np.ndarray, topics_o: list[str],
                topics_r: list[str], paired: bool) -> tuple[list[tuple], list[tuple]]:
    """repro_eval's score figures of one measure: ARP, RMSE, nRMSE, p-values, ER, DeltaRI."""
    rows, per_topic = [], []
    for k, pair in enumerate(("baseline", "advanced")):
        x, y = original[:, k], reproduced[:, k]
        rows += [(pair, "ARP_original", measure, formulas.arp(x), len(x)),
                 (pair, "ARP_reproduced", measure, formulas.arp(y), len(y))]
        if paired:
            rows += [(pair, "RMSE", measure, formulas.rmse(x, y), len(x)),
                     (pair, "nRMSE", measure, formulas.nrmse(x, y), len(x))]
            per_topic += [(pair, "difference", measure, topic, value) for topic, value in zip(topics_o, y - x)]
        rows.append((pair, "p_value", measure, formulas.t_test(x, y, paired), min(len(x), len(y))))
    arrays = (original[:, 0], original[:, 1], reproduced[:, 0], reproduced[:, 1])
    rows += [("effect", "ER", measure, formulas.effect_ratio(*arrays), len(topics_r)),
             ("effect", "DeltaRI", measure, formulas.delta_relative_improvement(*arrays), len(topics_r))]
    return rows, per_topic


@stores_in_one_transaction
def reproduce(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    baseline: str,
    advanced: str,
    rep_baseline: str | None,
    rep_advanced: str | None,
    measures: Sequence[str],
    *,
    rep_campaign: str | None = None,
    kind: str | None = None,
    trim: int = formulas.TRIM,
    rbo_depth: int = formulas.RBO_DEPTH,
    rbo_p: float = formulas.RBO_P,
    judgment_set: str | None = None,
    rep_judgment_set: str | None = None,
    store: bool = True,
) -> ReproResult:
    """repro_eval's measures between the original pair (``baseline``, ``advanced``) of
    ``campaign_id`` and its reproduction (``rep_baseline``, ``rep_advanced``) of ``rep_campaign``
    (default: the same campaign). ``kind``: ``reproducibility`` (default within one campaign:
    KTU, RBO, RBO with ties, RMSE, nRMSE, paired t-test, ER, DeltaRI) or ``replicability``
    (default across campaigns: unpaired t-test, ER, DeltaRI). A reproduced run given as None is
    the run recorded as reproducing (replicating) the original (``run_relations``, `pyeval
    relate`), and the recorded relation gives the default kind. Scores are the stored ones
    (evaluated now where missing); document orders are the runs trimmed to ``trim``."""
    from .. import __version__
    from ..resampling.store import insert_experiment, measure_names
    from .relations import recorded_reproduction

    relations = set()
    if rep_baseline is None or rep_advanced is None:
        found = {role: recorded_reproduction(con, campaign_id, run, rep_campaign)
                 for role, run, given in (("baseline", baseline, rep_baseline), ("advanced", advanced, rep_advanced))
                 if given is None}
        campaigns = {c for c, _, _ in found.values()} | ({rep_campaign} if rep_campaign else set())
        if len(campaigns) > 1:
            raise PyevalError(f"the recorded reproductions are in different campaigns ({', '.join(sorted(campaigns))}); "
                              f"name them with --rep-campaign")
        rep_campaign = campaigns.pop()
        rep_baseline = found["baseline"][1] if "baseline" in found else rep_baseline
        rep_advanced = found["advanced"][1] if "advanced" in found else rep_advanced
        relations = {relation for _, _, relation in found.values()}
    rep_campaign = rep_campaign or campaign_id
    recorded_kind = {"reproduces": "reproducibility", "replicates": "replicability"}
    default_kind = recorded_kind[relations.pop()] if len(relations) == 1 else None
    kind = kind or default_kind or ("reproducibility" if rep_campaign == campaign_id else "replicability")
    if kind not in KINDS:
        raise PyevalError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if not 0 < rbo_p < 1:
        raise PyevalError(f"RBO persistence p must be between 0 and 1 (exclusive); got {rbo_p}")
    if trim < 1 or rbo_depth < 1:
        raise PyevalError("the trim length and the RBO depth must be at least 1")
    names = measure_names(measures)
    require_runs(con, campaign_id, [baseline, advanced])
    require_runs(con, rep_campaign, [rep_baseline, rep_advanced])
    paired = kind == "reproducibility"
    if rep_campaign == campaign_id and rep_judgment_set in (None, judgment_set):
        both = topic_scores(con, campaign_id, [baseline, advanced, rep_baseline, rep_advanced], names,
                            judgment_set, store=store)
        original = reproduced = both
    else:
        original = topic_scores(con, campaign_id, [baseline, advanced], names, judgment_set, store=store)
        reproduced = topic_scores(con, rep_campaign, [rep_baseline, rep_advanced], names, rep_judgment_set,
                                  store=store)
    rows, per_topic = [], []
    for measure in names:
        topics_o, x, topics_r, y = _aligned(original, [baseline, advanced], reproduced,
                                            [rep_baseline, rep_advanced], measure, paired)
        if not topics_o or not topics_r:
            raise PyevalError(f"no topic has a score for '{measure}' in one of the runs compared")
        found, found_topics = _score_rows(measure, x, y, topics_o, topics_r, paired)
        rows += found
        per_topic += found_topics
    if paired:
        for pair, (run, rep_run) in (("baseline", (baseline, rep_baseline)), ("advanced", (advanced, rep_advanced))):
            lists = ranked_lists(con, campaign_id, run, rep_campaign, rep_run, trim)
            if not lists.topic_ids:
                raise PyevalError(f"runs '{run}' and '{rep_run}' have no topic in common: no document order to compare")
            order = document_order(lists, rbo_depth, rbo_p)
            for statistic, group in order.groupby("statistic", sort=False):
                defined = group["value"].dropna()
                rows.append((pair, statistic, None, float(defined.mean()) if len(defined) else np.nan, len(defined)))
                per_topic += [(pair, statistic, None, t, v) for t, v in zip(group["topic_id"], group["value"])]
    results = pd.DataFrame(rows, columns=["pair", "statistic", "measure", "value", "topics"])
    results["value"] = results["value"].astype(float)
    topic_values = pd.DataFrame(per_topic, columns=["pair", "statistic", "measure", "topic_id", "value"])
    repro_id = None
    if store:
        experiment = pd.DataFrame([{
            "kind": kind, "campaign_id": campaign_id, "baseline_run_id": baseline, "advanced_run_id": advanced,
            "rep_campaign_id": rep_campaign, "rep_baseline_run_id": rep_baseline, "rep_advanced_run_id": rep_advanced,
            "judgment_set": original.judgment_set, "rep_judgment_set": reproduced.judgment_set, "measures": names,
            "trim_depth": trim, "rbo_depth": rbo_depth, "rbo_p": rbo_p,
            "evaluation_ids": sorted(set(original.evaluation_ids) | set(reproduced.evaluation_ids)),
            "pyeval_version": __version__}])
        stored = results.assign(value=results["value"].where(np.isfinite(results["value"]), None))
        stored_topics = topic_values.assign(
            value=topic_values["value"].astype(float).where(np.isfinite(topic_values["value"].astype(float)), None))
        repro_id = insert_experiment(con, "repro_experiments", "repro_id", experiment,
                                     repro_results=stored, repro_topic_values=stored_topics)
    return ReproResult(kind, results, topic_values, repro_id, rep_campaign, rep_baseline, rep_advanced)
