"""U-measure, D-U and U-IA (Sakai & Dou 2013; Sakai, AIRS 2013) in numpy.

For a list d_1..d_l (the top l, l = the cutoff) and a document length len(d) in characters:

    pos_D(r) = snippet * r + F * sum over k <= r of read_D(d_k) len(d_k)
    D-U      = sum over r with read_D(d_r) of GG(d_r) max(0, 1 - pos_D(r)/L)
    pos_i(r) = snippet * r + F * sum over k <= r of read_i(d_k) len(d_k)
    U-IA     = sum over i of Pr(i|q) sum over r with read_i(d_r) of gv(x_i(d_r)) max(0, 1 - pos_i(r)/L)

read_D(d): d is relevant (level >= 1) to some intent; read_i(d): to intent i; GG(d) = sum over i
of Pr(i|q) gv(x_i(d)). A non-relevant document costs its snippet only. U is U-IA of ad hoc
qrels (one intent of weight 1). Readings of what the paper leaves open:
docs/diversity-measures.md section 9.3 and docs/measures.md.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from pyeval.core import sqlfiles
from ..errors import MeasureParamError
from ..measures import Measure
from .common import group_starts, long_form, staged_lists


def compute(con, measures: list[Measure], request) -> pd.DataFrame:
    """Per-topic values of U, D_U and U_IA (registry driver of family 'umeasure')."""
    campaign = request.campaign_id
    frames = []
    lists = staged_lists(con)  # staged by the plan before this step
    kind = con.execute("select qrels_kind from campaigns where campaign_id = $c", {"c": campaign}).fetchone()[0]
    if kind == "diversity":
        adhoc = [str(m) for m in measures if m.kind == "U"]  # the declared formula, not the name
        if adhoc:
            raise MeasureParamError(
                f"{adhoc[0]}: campaign '{campaign}' has diversity qrels; U reads ad hoc judgments "
                "(use D_U or U_IA, which read every intent)"
            )
    highest = con.execute("select max(level) from qrels_by_set where campaign_id = $c and judgment_set = $s",
                          {"c": campaign, "s": request.judgment_set}).fetchone()[0]
    lengths = None
    reads: dict[tuple, pd.DataFrame] = {}
    for measure in measures:
        probs = measure["probs"] if measure.has("probs") else "given"
        profile = _PROFILES[measure["gains"]]
        key = (probs, measure["cutoff"], profile)
        if key not in reads:
            reads[key] = con.execute(
                sqlfiles.read("drivers/umeasure_reads.sql"),
                {"campaign_id": campaign, "depth": measure["cutoff"], "probs": probs, "profile": profile,
                 "judgment_set": request.judgment_set},
            ).df()
        if probs != "given" and not con.execute(
            "select count(*) from intent_weights where campaign_id = $c and probs = $p", {"c": campaign, "p": probs}
        ).fetchone()[0]:
            raise MeasureParamError(f"{measure}: campaign '{campaign}' has no probability variant {probs!r}")
        rows = reads[key]
        if rows["length"].isna().any():
            if lengths is None:
                lengths = con.execute(
                    "select length from document_lengths where campaign_id = $c", {"c": campaign}
                ).fetchnumpy()["length"].astype(float)
            rows = _fill_lengths(rows, measure, campaign, lengths)
        gains = _gains(rows, measure, highest)
        frames.append(long_form(lists, str(measure), _value(measure, rows, gains, len(lists))))
    if not frames:
        return pd.DataFrame(columns=["run_id", "topic_id", "measure", "value"])
    return pd.concat(frames, ignore_index=True)



def _fill_lengths(rows: pd.DataFrame, measure: Measure, campaign: str, lengths: np.ndarray) -> pd.DataFrame:
    """Apply ``missing_length`` to the documents the user model reads without a known length."""
    missing = rows["length"].isna()
    policy = measure["missing_length"]
    if policy == "error":
        documents = sorted(set(rows.loc[missing, "doc_id"]))
        shown = ", ".join(documents[:5]) + (f" and {len(documents) - 5} more" if len(documents) > 5 else "")
        raise MeasureParamError(
            f"{measure}: campaign '{campaign}' has no document length for {len(documents)} relevant "
            f"document(s) the user reads: {shown}; load them (pyeval load doclengths) or choose "
            "missing_length=zero|mean|median|'<characters>'"
        )
    if policy in ("mean", "median"):
        if len(lengths) == 0:
            raise MeasureParamError(f"{measure}: campaign '{campaign}' has no document lengths to take the "
                                    f"{policy} of")
        fill = float(np.mean(lengths) if policy == "mean" else np.median(lengths))
    else:
        fill = 0.0 if policy == "zero" else float(int(policy))
    rows = rows.copy()
    rows["length"] = rows["length"].astype(float).fillna(fill)
    return rows


#: The gain profile (view profile_gains) each ``gains`` setting reads: exp_scaled is exp / 2^H.
_PROFILES = {"linear": "linear", "exp": "exp", "exp_scaled": "exp"}


def _gains(rows: pd.DataFrame, measure: Measure, highest: int | None) -> np.ndarray:
    """gv_x of each read row: its profile gain, over 2^H for exp_scaled."""
    gains = rows["gain"].to_numpy(dtype=float)
    if measure["gains"] != "exp_scaled":
        return gains
    h = measure["H"] if measure["H"] is not None else highest
    if h is None or h < 1:
        return np.zeros(len(gains))
    levels = rows["level"].to_numpy()
    if len(levels) and levels.max() > h:
        raise MeasureParamError(f"{measure}: level {int(levels.max())} is above H = {h}")
    return gains / 2.0 ** h


def _trail_values(list_no, rank, length, gain, starts, measure: Measure) -> np.ndarray:
    """gain * max(0, 1 - pos/L) of each read row, pos = snippet*rank + F*(lengths read so far in
    the row's trailtext); rows sorted by trailtext (``starts``) then rank."""
    cumulated = np.cumsum(length)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(starts)), 0))
    before = np.where(group_start > 0, cumulated[group_start - 1], 0.0) if len(starts) else cumulated
    read = cumulated - before
    position = measure["snippet"] * rank + measure["F"] * read
    return gain * np.maximum(0.0, 1.0 - position / measure["L"])


def _value(measure: Measure, rows: pd.DataFrame, gains: np.ndarray, lists: int) -> np.ndarray:
    list_no = rows["list_no"].to_numpy(dtype=np.int64)
    rank = rows["rank"].to_numpy(dtype=np.int64).astype(float)
    length = rows["length"].to_numpy(dtype=float)
    weight = rows["weight"].to_numpy(dtype=float)
    intent = rows["intent_id"].to_numpy()
    if measure.kind == "D_U":
        # one trailtext per list: each read document once, its gain the global gain
        starts = group_starts(list_no, rank.astype(np.int64))
        index = np.flatnonzero(starts)
        global_gain = np.add.reduceat(weight * gains, index) if len(index) else np.zeros(0)
        values = _trail_values(list_no[index], rank[index], length[index], global_gain,
                               group_starts(list_no[index]), measure)
        return np.bincount(list_no[index], weights=values, minlength=lists)
    # U and U-IA: one trailtext per (list, intent)
    codes = pd.factorize(intent)[0]
    order = np.lexsort((rank, codes, list_no))
    starts = group_starts(list_no[order], codes[order])
    values = _trail_values(list_no[order], rank[order], length[order], gains[order], starts, measure)
    return np.bincount(list_no[order], weights=weight[order] * values, minlength=lists)
