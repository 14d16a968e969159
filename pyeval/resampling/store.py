"""Shared plumbing of the stage II meta-evaluation modules: the matrices of several measures on
common runs and topics, tolerance-aware signs, and storing one experiment's rows.

Result tables (docs/schema.md, migration 0008_metaeval) are named by the constants of the modules
that write them, never by user input.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import first_row, transaction
from ..errors import PyevalError, PyevalWarning
from .matrix import ScoreMatrix, canonical_measure, score_matrix
from .stats import TOLERANCE


class TopicMismatchWarning(PyevalWarning):
    """Measures compared on the topics they share: some topics had values for only some of them."""


@dataclass(frozen=True)
class MeasureMatrices:
    """Topic x run matrices of several measures on the same runs and topics (in this order)."""

    campaign_id: str
    measures: tuple[str, ...]
    topic_ids: tuple[str, ...]
    run_ids: tuple[str, ...]
    values: dict[str, np.ndarray]
    evaluation_ids: dict[str, int | None]
    filled: int
    judgment_set: str = "official"  # the judgment set the scores were computed under

    @property
    def evaluation_id(self) -> int | None:
        """The latest evaluation behind any of the measures."""
        ids = [e for e in self.evaluation_ids.values() if e is not None]
        return max(ids) if ids else None

    def means(self, measure: str) -> np.ndarray:
        return self.values[measure].mean(axis=0)


def measure_names(measures: Sequence[str], *, at_least: int = 1) -> list[str]:
    """Canonical, de-duplicated measure names; too few is a one-line error."""
    names = list(dict.fromkeys(canonical_measure(m) for m in measures))
    if len(names) < at_least:
        raise PyevalError(
            f"give at least {at_least} different measure{'s' if at_least > 1 else ''} (-m); got {len(names)}"
        )
    return names


def measure_matrices(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    runs: Sequence[str] | None = None,
    judgment_set: str = "official",
) -> MeasureMatrices:
    """The scores of ``measures`` stored under ``judgment_set`` over the runs scored on all of
    them (or ``runs``) and the topics all of them have values for (a warning names what is
    dropped)."""
    names = list(dict.fromkeys(measures))
    first: dict[str, ScoreMatrix] = {name: score_matrix(con, campaign_id, name, runs, judgment_set)
                                     for name in names}
    common_runs = sorted(set.intersection(*(set(m.run_ids) for m in first.values())))
    if len(common_runs) < 2:
        raise PyevalError(
            f"fewer than 2 runs of campaign '{campaign_id}' have stored scores for every measure "
            f"({', '.join(names)})"
        )
    matrices = {name: (m if list(m.run_ids) == common_runs
                       else score_matrix(con, campaign_id, name, common_runs, judgment_set))
                for name, m in first.items()}
    topic_sets = [set(m.topic_ids) for m in matrices.values()]
    common_topics = sorted(set.intersection(*topic_sets))
    if not common_topics:
        raise PyevalError(f"the measures {', '.join(names)} have no topic in common in campaign '{campaign_id}'")
    dropped = len(set.union(*topic_sets)) - len(common_topics)
    if dropped:
        warnings.warn(f"{dropped} topics lack values for some of {', '.join(names)}; "
                      f"using the {len(common_topics)} topics they share", TopicMismatchWarning, stacklevel=2)
    values = {}
    for name, m in matrices.items():
        position = {t: i for i, t in enumerate(m.topic_ids)}
        values[name] = m.values[[position[t] for t in common_topics]]
    return MeasureMatrices(campaign_id, tuple(names), tuple(common_topics), tuple(common_runs), values,
                           {name: m.evaluation_id for name, m in matrices.items()},
                           sum(m.filled for m in matrices.values()), judgment_set)


class LittleDataWarning(PyevalWarning):
    """A meta-evaluation result computed on too little data to mean much (stored with it)."""


#: Fewer runs than this (so fewer than 3 run pairs) make rankings, swaps and concordance trivial.
MIN_RUNS = 3


def few_runs(run_count: int) -> list[str]:
    """The warning of a result over fewer than :data:`MIN_RUNS` runs (none otherwise)."""
    if run_count >= MIN_RUNS:
        return []
    pairs = run_count * (run_count - 1) // 2
    return [f"only {run_count} runs ({pairs} run pair{'' if pairs == 1 else 's'}): fewer than {MIN_RUNS} runs make "
            f"rank correlations (tau is +1 or -1), swap rates and concordance trivial; the result says little"]


def announce(messages: Sequence[str]) -> None:
    """Issue each distinct message once as a :class:`LittleDataWarning` (the CLI prints them)."""
    for message in dict.fromkeys(messages):
        warnings.warn(message, LittleDataWarning, stacklevel=3)


def signs(values: np.ndarray, scale: float | None = None) -> np.ndarray:
    """Tolerance-aware sign (docs/meta-evaluation.md 13): 0 where |v| <= 1e-9 * max(1, scale)."""
    values = np.asarray(values, dtype=float)
    if scale is None:
        scale = float(np.abs(values).max(initial=0.0))
    tol = TOLERANCE * max(1.0, scale)
    return np.where(values > tol, 1, np.where(values < -tol, -1, 0)).astype(np.int8)


def insert_experiment(con: duckdb.DuckDBPyConnection, table: str, id_column: str, frame: pd.DataFrame,
                      **more: pd.DataFrame) -> int:
    """Insert ``frame`` into ``table`` (and each ``more`` frame into the table of its keyword),
    all under one new experiment id in one transaction; returns the id. Table and column names
    are module constants and our own frame columns, never user input."""
    with transaction(con):  # part of the command's transaction, if any (pyeval.core.db)
        new_id = first_row(con, f"select coalesce(max({id_column}), 0) + 1 from {table}")[0]
        for target, rows in {table: frame, **more}.items():
            rows = rows.copy()
            rows.insert(0, id_column, new_id)
            con.register("new_metaeval_rows", rows)
            try:
                columns = ", ".join(rows.columns)
                con.execute(f"insert into {target} ({columns}) select {columns} from new_metaeval_rows")
            finally:
                con.unregister("new_metaeval_rows")
    return int(new_id)


def save_figure(figure, path, dpi: float | None = None) -> None:
    """Save and close a matplotlib figure (Agg backend) in the format ``path``'s suffix names
    (.png, .pdf, .svg), at ``dpi`` (None: the figure's). ``path`` is created, or replaced only
    when it is a figure pyeval saved (:func:`pyeval.storage.ownership.is_pyeval_figure`), never another
    file; the figure is written beside it and renamed over it."""
    import matplotlib.pyplot as plt

    from pyeval.storage import ownership

    try:
        fmt = ownership.figure_format(path)
        ownership.require_replaceable_output(path, "figure", ownership.is_pyeval_figure)
        figure.tight_layout()
        ownership.replace_file(path, lambda temporary: figure.savefig(
            temporary, format=fmt, dpi=dpi or "figure", metadata=ownership.FIGURE_METADATA[fmt]))
    finally:
        plt.close(figure)


def pyplot():
    """matplotlib.pyplot with the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
