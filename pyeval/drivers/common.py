"""What the Python family drivers share: the evaluated lists, and exact running sums.

The lists (sql/drivers/) are stages of the plan (pyeval.core.plan.DRIVER_STAGING), made before
the driver step and dropped after its pass: ``driver_topics`` (judged topics), ``driver_lists``
(the (run, topic) lists under the evaluation's topic policy) and ``driver_entries`` (their
ranked documents, from the ranked-and-cut stage every staging reads,
sql/evaluation/evaluation_entries.sql). A driver stages nothing itself.

Sums follow the reference C programs' order of additions (rank by rank, intent by intent), so
the values are the same doubles, not only close ones: numpy's ``sum`` adds pairwise, so the
drivers use :func:`running_sums` (sequential per group) and ``np.cumsum`` along an axis
(sequential).
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def staged_lists(con) -> pd.DataFrame:
    """The evaluated lists the plan staged before the driver step (``driver_lists``:
    ``list_no, run_id, topic_id, topic_no``)."""
    return con.execute("select * from driver_lists order by list_no").df()


def group_starts(*keys: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows where any of the (sorted) key columns changes."""
    n = len(keys[0])
    starts = np.zeros(n, dtype=bool)
    if n:
        starts[0] = True
        for key in keys:
            starts[1:] |= key[1:] != key[:-1]
    return starts


def positions(starts: np.ndarray) -> np.ndarray:
    """0-based position of each row within its group (groups begin where ``starts``)."""
    index = np.arange(len(starts))
    return index - np.maximum.accumulate(np.where(starts, index, 0))


def running_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Prefix sums within groups of consecutive rows, added one row after another from 0.0 as a
    C loop does (``total += value``): exact where a cumulative sum minus an offset is not."""
    n = len(values)
    if n == 0:
        return np.zeros(0)
    group = np.cumsum(starts) - 1
    position = positions(starts)
    groups, width = int(group[-1]) + 1, int(position.max()) + 1
    if groups * width <= 8 * n + 1_000_000:  # a padded matrix: np.cumsum along a row is sequential
        padded = np.zeros((groups, width))
        padded[group, position] = values
        return np.cumsum(padded, axis=1)[group, position]
    out = np.zeros(n)  # one long group: add position by position across all groups
    order = np.argsort(position, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(position))])
    totals = np.zeros(groups)
    for p in range(len(bounds) - 1):
        rows = order[bounds[p]:bounds[p + 1]]
        totals[group[rows]] += values[rows]
        out[rows] = totals[group[rows]]
    return out


def last_at_or_before(list_of_row: np.ndarray, rank_of_row: np.ndarray, lists: int, cutoff: int) -> np.ndarray:
    """For every list 0..lists-1, the index of its last row with rank <= cutoff (rows sorted by
    list then rank), or -1 when it has none."""
    if len(list_of_row) == 0:
        return np.full(lists, -1)
    scale = np.int64(max(int(rank_of_row.max()), cutoff) + 1)
    keys = list_of_row.astype(np.int64) * scale + rank_of_row
    wanted = np.arange(lists, dtype=np.int64) * scale + cutoff
    index = np.searchsorted(keys, wanted, side="right") - 1
    valid = index >= 0
    valid[valid] &= list_of_row[index[valid]] == np.arange(lists)[valid]
    return np.where(valid, index, -1)


def at_cutoff(prefix: np.ndarray, list_of_row: np.ndarray, rank_of_row: np.ndarray, lists: int,
              cutoff: int, empty: float = 0.0) -> np.ndarray:
    """Per list, the running value of its last row at rank <= cutoff (``empty`` if none)."""
    index = last_at_or_before(list_of_row, rank_of_row, lists, cutoff)
    return np.where(index >= 0, prefix[np.maximum(index, 0)] if len(prefix) else empty, empty)


def long_form(lists: pd.DataFrame, measure: str, values: np.ndarray) -> pd.DataFrame:
    """``run_id, topic_id, measure, value`` rows of one measure for every list."""
    return pd.DataFrame({"run_id": lists["run_id"].to_numpy(), "topic_id": lists["topic_id"].to_numpy(),
                         "measure": measure, "value": np.asarray(values, dtype=float)})
