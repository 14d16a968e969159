"""Fusion parameter grids in one pass: every point fused by one SQL (a table of points joined
in), every point evaluated as a temporary run by one evaluation, the means per point on training
and test topics stored (fusion_grids, fusion_grid_points); docs/fusion.md "Grids".

Choosing a point on the topics it is reported on overfits: give training topics
(``train_topics``) or ``folds`` to choose on some topics and report on the others.
"""
from __future__ import annotations

import itertools
import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from pyeval.core.db import check_judgment_set, default_judgment_set, first_row, rollback_quietly, transaction
from .. import progress as bars
from ..errors import PyevalError, PyevalWarning
from . import compute
from .recipe import Recipe, check_k, check_p, check_weights
from .store import check_name, store_staged

#: The parameters a grid may vary.
GRID_KEYS = ("k", "p", "weights")
#: Families whose value at cutoff c reads only the first c ranks (and the qrels): a grid
#: evaluates their lists cut at c (the fused order is the evaluation's order).
_CUTOFF_FAMILIES = ("nDCG", "P", "R", "RR", "AP")
#: Prefix of the temporary runs of a grid (a TREC run tag has no spaces: no loaded run has it).
_POINT_RUN = "fusion grid point "


class OverfittingWarning(PyevalWarning):
    """A grid point chosen and reported on the same topics."""


@dataclass(repr=False)
class GridResult(Displayed):
    """A grid: ``points`` (point_id, the varied parameters, train_mean, test_mean), the best
    point (chosen on the training topics), the inputs' means, the test of the best point against
    the best input run (on the test topics), and the stored ids.

    Under cross-validation (``split`` ``folds=N``) no point has a mean of its own on test
    topics: ``train_mean`` is each point's mean over every topic, the best point is the best
    over every topic (what ``--keep-best`` keeps), ``fold_points`` the point each fold's
    training part chose, and the cross-validated estimate (each fold's choice scored on that
    fold's topics, averaged over every topic) is ``test_mean`` of the best point's row only."""

    recipe: Recipe
    measure: str
    points: pd.DataFrame
    inputs: pd.DataFrame
    best_point: int
    best_input: str
    split: str
    significance: object | None
    grid_id: int | None
    kept_run_id: str | None
    axes: tuple[str, ...]
    fold_points: tuple[int, ...] = ()

    def df(self) -> pd.DataFrame:
        """``points``: one row per point of the grid."""
        return self.points

    def _display_frame(self) -> pd.DataFrame:
        return self.shown_points()

    def _display_note(self) -> str:
        return self.summary()

    @property
    def cross_validated(self) -> bool:
        return self.split.startswith("folds")

    def shown_points(self) -> pd.DataFrame:
        """``points`` as printed: under cross-validation ``train_mean`` is named for what it is
        (``mean_all_topics``), ``test_mean`` (defined for the procedure, not for a point) gives way
        to ``folds_chosen``, how many folds' training parts chose the point."""
        if not self.cross_validated:
            return self.points.copy()
        chosen = pd.Series(self.fold_points).value_counts()
        shown = self.points.drop(columns=["test_mean"]).rename(columns={"train_mean": "mean_all_topics"})
        shown["folds_chosen"] = [int(chosen.get(point, 0)) for point in shown["point_id"]]
        return shown

    def summary(self) -> str:
        best = self.points.set_index("point_id").loc[self.best_point]
        values = ", ".join(f"{axis}={_text(best[axis])}" for axis in self.axes)
        input_mean = self.inputs.set_index("run_id").loc[self.best_input, "test_mean" if self.split != "none"
                                                         else "train_mean"]
        if self.cross_validated:
            line = (f"cross-validated {self.measure} {best['test_mean']:.4f} ({len(self.fold_points)} folds, each "
                    f"scoring the point its other folds chose: points {', '.join(map(str, self.fold_points))}); "
                    f"best input the same way '{self.best_input}' {input_mean:.4f}")
        else:
            column = "test_mean" if self.split != "none" else "train_mean"
            line = (f"best point {self.best_point} ({values}): {self.measure} {best[column]:.4f} on the "
                    f"{'test' if self.split != 'none' else 'same'} topics; best input '{self.best_input}' "
                    f"{input_mean:.4f}")
        if self.significance is not None:
            pair = self.significance.pairs.iloc[0]
            line += f"; {self.significance.test} p = {pair['pvalue']:.4g}"
        if self.cross_validated:
            line += (f"; best over all topics: point {self.best_point} ({values}), {self.measure} "
                     f"{best['train_mean']:.4f} (optimistic: chosen on the topics it is scored on)")
        return line

    def plot(self, path) -> None:
        """The grid as a line plot (one varied parameter) or a heat map (two), PNG."""
        from ..resampling.store import pyplot, save_figure

        plt = pyplot()
        figure, axes = plt.subplots(figsize=(6, 4))
        column = "test_mean" if self.split != "none" and self.split.startswith("train") else "train_mean"
        frame = self.points.copy()
        for axis in self.axes:
            if axis == "weights":
                frame[axis] = [w[0] for w in frame[axis]]
        if len(self.axes) == 1:
            axis = self.axes[0]
            frame = frame.sort_values(axis)
            axes.plot(frame[axis], frame["train_mean"], marker="o",
                      label="all topics" if self.cross_validated else "training topics")
            if column == "test_mean":
                axes.plot(frame[axis], frame["test_mean"], marker="s", label="test topics")
            axes.set_xlabel(axis if axis != "weights" else "weight of the first run")
            axes.set_ylabel(self.measure)
            axes.legend()
        else:
            x, y = self.axes[:2]
            table = frame.pivot_table(index=y, columns=x, values="train_mean")
            image = axes.imshow(table.to_numpy(), aspect="auto", origin="lower", cmap="viridis")
            axes.set_xticks(range(len(table.columns)), [_text(v) for v in table.columns], rotation=90)
            axes.set_yticks(range(len(table.index)), [_text(v) for v in table.index])
            axes.set_xlabel(x)
            axes.set_ylabel(y)
            figure.colorbar(image, ax=axes, label=f"{self.measure} ({'all' if self.cross_validated else 'training'} topics)")
        axes.set_title(f"{self.recipe.method} of {', '.join(self.recipe.runs)}")
        save_figure(figure, path)


def _text(value) -> str:
    if isinstance(value, (list, tuple)):
        return "/".join(f"{v:g}" for v in value)
    return f"{value:g}"


def _numbers(text: str, key: str) -> list[Decimal]:
    """``10,20,60`` or ``start:stop:step`` (stop included) as exact decimals."""
    try:
        if ":" in text:
            start, stop, step = (Decimal(part) for part in text.split(":"))
            if step <= 0 or stop < start:
                raise PyevalError(f"grid {key}: a range is start:stop:step with step > 0 and stop >= start")
            count = int((stop - start) / step) + 1
            if count > 100_000:
                raise PyevalError(f"grid {key}: {count} values is too many")
            return [start + step * i for i in range(count)]
        parts = text.split(",")
        if not all(part.strip() for part in parts):
            raise PyevalError(f"grid {key}: an empty value in {text!r}")
        return [Decimal(part) for part in parts]
    except (InvalidOperation, ValueError):
        raise PyevalError(f"grid {key}: not numbers: {text!r} (e.g. {key}=10,20,60 or {key}=10:100:10)") from None


def parse_grid(specs: Sequence[str], inputs: int) -> dict[str, list]:
    """``['k=10,20,60', 'weights=0.1:0.9:0.1']`` -> the values of each varied parameter. A
    weight list is ``w1/w2/...`` (one per input); single weights w give, for two inputs, the
    points (w, 1 - w), and for more every combination of them summing to 1 (ranx optimize_fusion)."""
    axes: dict[str, list] = {}
    for spec in specs:
        key, _, values = spec.partition("=")
        key = key.strip()
        if key not in GRID_KEYS or not values:
            raise PyevalError(f"a grid is KEY=VALUES with KEY one of {', '.join(GRID_KEYS)}; got {spec!r}")
        if key in axes:
            raise PyevalError(f"grid {key} is given twice")
        if key == "weights" and "/" in values:
            tuples = [tuple(float(v) for v in _numbers(part.replace("/", ","), key)) for part in values.split(",")]
            axes[key] = [check_weights(t, inputs) for t in tuples]
        elif key == "weights":
            numbers = _numbers(values, key)
            if inputs == 2:
                axes[key] = [(float(w), float(1 - w)) for w in numbers]
            else:
                axes[key] = [tuple(map(float, combo)) for combo in itertools.product(numbers, repeat=inputs)
                             if sum(combo) == 1]
            if not axes[key]:
                raise PyevalError(f"grid weights {values!r}: no combination of {inputs} weights sums to 1")
            axes[key] = [check_weights(t, inputs) for t in axes[key]]
        else:
            axes[key] = [float(v) for v in _numbers(values, key)]
            for value in axes[key]:
                (check_k if key == "k" else check_p)(value)
    if not axes:
        raise PyevalError("an empty grid: give at least one axis KEY=VALUES (k, p or weights)")
    return axes


def _topic_split(topics: list[str], train_topics: Sequence[str] | None, folds: int | None) -> tuple[str, list[int]]:
    """(description, fold of each topic): fold 0 = training, 1 = test for a topic list; 0..N-1
    for N folds (topics in byte order, dealt in turn); all 0 without a split."""
    if train_topics is not None and folds is not None:
        raise PyevalError("give training topics or folds, not both")
    if train_topics is not None:
        train = set(train_topics)
        unknown = sorted(train - set(topics))
        if unknown:
            raise PyevalError(f"training topic {unknown[0]!r} is not among the evaluated topics")
        assigned = [0 if topic in train else 1 for topic in topics]
        if 0 not in assigned or 1 not in assigned:
            raise PyevalError("the training topics must leave at least one topic for testing, and hold one")
        return f"train-topics ({len(train)} train, {len(topics) - len(train)} test)", assigned
    if folds is not None:
        if folds < 2 or folds > len(topics):
            raise PyevalError(f"folds must be between 2 and the number of topics ({len(topics)}); got {folds}")
        return f"folds={folds}", [index % folds for index in range(len(topics))]
    return "none", [0] * len(topics)


@default_judgment_set()
def evaluate_grid(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    recipe: Recipe,
    grid: Sequence[str] | dict[str, list],
    *,
    measure: str = "nDCG@10",
    train_topics: Sequence[str] | None = None,
    folds: int | None = None,
    keep_best: str | None = None,
    replace: bool = False,
    test: str = "randomization",
    judgment_set: str | None = None,
    store: bool = True,
    plot: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> GridResult:
    """Evaluate every point of ``grid`` (``['k=10,20,60', 'weights=0.1:0.9:0.1']`` or
    :func:`parse_grid`'s result) over ``recipe`` under ``measure`` in one pass, choose the best
    point on the training topics, test it against the best input run on the test topics
    (pyeval.resampling.significance, ``test``), store the grid (``store``) and, with
    ``keep_best``, the best point as a fused run of that name.

    Splits: ``train_topics`` (the rest are test topics) or ``folds`` (cross-validation: each
    fold's point is chosen on the other folds; the reported value is the mean over all topics of
    the chosen points' values). Without a split an :class:`OverfittingWarning` is issued.
    ``plot``: save the grid's figure there (:meth:`GridResult.plot`) before what is stored is
    committed, so that a figure that cannot be written stores nothing. ``progress``: a bar over
    the steps (fuse the points, evaluate them, test the best; :func:`pyeval.progress.shown`).
    """
    from pyeval.core.evaluation import evaluate
    from ..measures import parse_measures
    from ..resampling.matrix import ScoreMatrix
    from ..resampling.significance import test_matrix

    recipe = recipe.checked()
    compute.check_inputs(con, campaign_id, recipe)
    check_judgment_set(con, campaign_id, judgment_set)
    axes = grid if isinstance(grid, dict) else parse_grid(grid, len(recipe.runs))
    names = tuple(axes)
    parsed = parse_measures(measure)
    if len(parsed) != 1:
        raise PyevalError(f"a grid is evaluated under one measure; {measure!r} names {len(parsed)}")
    chosen_measure = parsed[0]
    combos = list(itertools.product(*(axes[name] for name in names)))
    points = []
    for combo in combos:
        values = dict(zip(names, combo))
        points.append(compute.Point(values.get("k", recipe.k), values.get("p", recipe.p),
                                    tuple(values.get("weights", recipe.weight_list()))))
    if keep_best is not None:
        check_name(con, campaign_id, keep_best, recipe, replace)
    depth = recipe.output_depth or compute.NO_DEPTH_LIMIT
    if (chosen_measure.definition.at == "cutoff" and chosen_measure.name in _CUTOFF_FAMILIES
            and recipe.tie_order == "docno-desc" and chosen_measure["cutoff"] is not None):
        depth = min(depth, int(chosen_measure["cutoff"]))
    point_runs = [f"{_POINT_RUN}{number}" for number in range(1, len(points) + 1)]
    steps = bars.bar(progress=progress, total=3, desc=f"fuse {len(points)} points", unit="step")
    try:
        compute.stage(con, campaign_id, recipe, points)
        steps.update()
        steps.set_description(f"evaluate {len(points)} points")
        con.begin()  # the points as temporary runs, evaluated, then rolled back: nothing stays
        try:
            con.execute(
                "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256) "
                "select $c, $prefix || point_id, null, 'fusion grid', '' from fusion_points",
                {"c": campaign_id, "prefix": _POINT_RUN})
            con.execute(
                "insert into run_entries (campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, "
                "trec_rank) select $c, $prefix || point_id, topic_id, doc_id, rank, score, rank, rank "
                "from fusion_scores where rank <= $depth",
                {"c": campaign_id, "prefix": _POINT_RUN, "depth": depth})
            result = evaluate(con, campaign_id, [chosen_measure], runs=[*recipe.runs, *point_runs], store=False,
                              judgment_set=judgment_set)
        finally:
            rollback_quietly(con)
        if keep_best is None:
            compute.drop(con)
        steps.update()
        steps.set_description("test the best point")
        per_topic = result.per_topic
        matrix = per_topic.pivot(index="topic_id", columns="run_id", values="value").fillna(0.0)
        topics = sorted(matrix.index)
        matrix = matrix.loc[topics]
        split, assigned = _topic_split(topics, train_topics, folds)
        assigned = np.asarray(assigned)
        X_points = matrix[point_runs].to_numpy()
        X_inputs = matrix[list(recipe.runs)].to_numpy()
        if split == "none":
            warnings.warn("the best point is chosen and reported on the same topics, which overfits: its mean is "
                          "optimistic; give training topics (train_topics, --train-topics) or folds (folds, --folds)",
                          OverfittingWarning,
                          stacklevel=2)
        if split.startswith("folds"):
            train_mean = X_points.mean(axis=0)
            test_mean = np.full(len(points), np.nan)
            fused_cv = np.empty(len(topics))
            input_cv = np.empty(len(topics))
            fold_points = []
            for fold in range(folds):
                inside = assigned == fold
                best_here = int(np.argmax(X_points[~inside].mean(axis=0)))
                fold_points.append(best_here + 1)
                input_here = int(np.argmax(X_inputs[~inside].mean(axis=0)))
                fused_cv[inside] = X_points[inside, best_here]
                input_cv[inside] = X_inputs[inside, input_here]
            best = int(np.argmax(train_mean))
            best_input = int(np.argmax(X_inputs.mean(axis=0)))
            compared = np.column_stack([fused_cv, input_cv])
            test_topics = tuple(topics)
            input_means = pd.DataFrame({"run_id": list(recipe.runs), "train_mean": X_inputs.mean(axis=0),
                                        "test_mean": np.nan})
            test_mean[best] = fused_cv.mean()
            input_means.loc[best_input, "test_mean"] = input_cv.mean()
        else:
            fold_points = []
            train = assigned == 0
            test_rows = assigned == 1 if split != "none" else train
            train_mean = X_points[train].mean(axis=0)
            test_mean = X_points[test_rows].mean(axis=0) if split != "none" else np.full(len(points), np.nan)
            best = int(np.argmax(train_mean))
            best_input = int(np.argmax(X_inputs[train].mean(axis=0)))
            compared = np.column_stack([X_points[test_rows, best], X_inputs[test_rows, best_input]])
            test_topics = tuple(t for t, keep in zip(topics, test_rows) if keep)
            input_means = pd.DataFrame({"run_id": list(recipe.runs), "train_mean": X_inputs[train].mean(axis=0),
                                        "test_mean": X_inputs[test_rows].mean(axis=0) if split != "none" else np.nan})
        frame = pd.DataFrame({"point_id": range(1, len(points) + 1)})
        for name in names:
            frame[name] = [values for values in (dict(zip(names, combo))[name] for combo in combos)]
        frame["train_mean"] = train_mean
        frame["test_mean"] = test_mean
        best_label = f"{recipe.method} point {best + 1}"
        score_matrix = ScoreMatrix(campaign_id, str(chosen_measure), test_topics,
                                   (best_label, recipe.runs[best_input]), compared, 0, None, judgment_set)
        significance = (test_matrix(score_matrix, test, store_replicates=False, progress=progress)
                        if len(test_topics) > 1 else None)
        steps.update()
        result = GridResult(recipe, str(chosen_measure), frame, input_means, best + 1, recipe.runs[best_input], split,
                            significance, None, None, names, tuple(fold_points))
        if store or keep_best is not None:
            with transaction(con):
                if keep_best is not None:
                    con.execute("delete from fusion_scores where point_id <> $p", {"p": best + 1})
                    con.execute("update fusion_scores set point_id = 1")
                    import dataclasses

                    kept_recipe = dataclasses.replace(recipe, k=points[best].k, p=points[best].p,
                                                      weights=points[best].weights)
                    store_staged(con, campaign_id, keep_best, kept_recipe)
                    result.kept_run_id = keep_best
                if store:
                    counts = (int((assigned == 0).sum()), int((assigned == 1).sum())) if not split.startswith("folds") \
                        else (len(topics), len(topics))
                    result.grid_id = _store_grid(con, campaign_id, recipe, str(chosen_measure), judgment_set, split,
                                                 frame, names, best + 1, result.kept_run_id, counts)
                if plot is not None:  # in the transaction: a figure that cannot be written stores nothing
                    result.plot(plot)
        elif plot is not None:
            result.plot(plot)
    finally:
        steps.close()
        compute.drop(con)
    return result


def _store_grid(con, campaign_id, recipe, measure, judgment_set, split, frame, names, best, kept, counts) -> int:
    from .. import __version__

    grid_id = first_row(con, "select coalesce(max(grid_id), 0) + 1 from fusion_grids")[0]
    parents = dict(con.execute("select run_id, source_sha256 from runs where campaign_id = $c "
                               "and list_contains($r, run_id)", {"c": campaign_id, "r": list(recipe.runs)}).fetchall())
    parameters = {**recipe.parameters(), "runs": list(recipe.runs), "parents_sha256": [parents[r] for r in recipe.runs],
                  "grid": list(names)}
    con.execute(
        "insert into fusion_grids (grid_id, campaign_id, method, parameters, measure, judgment_set, topic_split, "
        "best_point, kept_run_id, pyeval_version) values ($id, $c, $method, $parameters, $measure, $judgments, "
        "$split, $best, $kept, $version)",
        {"id": grid_id, "c": campaign_id, "method": recipe.method, "parameters": json.dumps(parameters, sort_keys=True),
         "measure": measure, "judgments": judgment_set, "split": split, "best": best, "kept": kept,
         "version": __version__})
    rows = [(grid_id, int(row.point_id), json.dumps({name: getattr(row, name) for name in names}),
             None if np.isnan(row.train_mean) else float(row.train_mean),
             None if np.isnan(row.test_mean) else float(row.test_mean), *counts)
            for row in frame.itertuples(index=False)]
    con.executemany(
        "insert into fusion_grid_points (grid_id, point_id, parameters, train_mean, test_mean, train_topics, "
        "test_topics) values (?, ?, ?, ?, ?, ?, ?)", rows)
    return grid_id
