"""Fusing stored runs in SQL: stage the inputs and a table of points, run sql/fusion/.

One pass makes the fused list of every point of a recipe (a single recipe is one point; a grid
is many): fusion_entries -> fusion_weighted -> fusion_normalised -> fusion_scores, each a
temporary table made from the file of sql/fusion/ of that name, given the parameters its header
declares. Every formula is in those files (docs/fusion.md).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from pyeval.core import sqlfiles
from pyeval.storage.public import use_internal_schema
from pyeval.core.db import create_rows, first_row, unknown_campaign
from ..errors import PyevalError
from .recipe import SCORE_METHODS, Recipe

#: "No cut" for a depth (ranks are below it).
NO_DEPTH_LIMIT = 2**62
#: The temporary tables a fusion makes, in the order it makes them.
STAGES = ("fusion_entries", "fusion_weighted", "fusion_normalised", "fusion_scores")
_INPUT_TABLES = ("fusion_inputs", "fusion_points", "fusion_point_weights")


@dataclass(frozen=True)
class Point:
    """The values a grid varies: RRF's k, RBP's p and the weights (one per input)."""

    k: float
    p: float
    weights: tuple[float, ...]


def check_inputs(con: duckdb.DuckDBPyConnection, campaign_id: str, recipe: Recipe) -> None:
    """PyevalError (one line) unless the campaign exists and holds every run of the recipe, each
    with at least one entry."""
    if first_row(con, "select 1 from campaigns where campaign_id = $c", {"c": campaign_id}) is None:
        raise unknown_campaign(con, campaign_id)
    counts = dict(con.execute(
        "select runs.run_id, count(run_entries.run_id) from runs left join run_entries "
        "on runs.campaign_id = run_entries.campaign_id and runs.run_id = run_entries.run_id "
        "where runs.campaign_id = $c and list_contains($r, runs.run_id) group by runs.run_id",
        {"c": campaign_id, "r": list(recipe.runs)}).fetchall())
    for run in recipe.runs:
        if run not in counts:
            elsewhere = [row[0] for row in con.execute(
                "select campaign_id from runs where run_id = $r order by campaign_id", {"r": run}).fetchall()]
            where = f" (it is a run of campaign {', '.join(map(repr, elsewhere))})" if elsewhere else ""
            raise PyevalError(f"campaign '{campaign_id}' has no run named '{run}'{where}; "
                              "fusion reads runs of one campaign")
        if counts[run] == 0:
            raise PyevalError(f"run '{run}' of campaign '{campaign_id}' has no entries: nothing to fuse")


def stage(con: duckdb.DuckDBPyConnection, campaign_id: str, recipe: Recipe, points: Sequence[Point]) -> None:
    """Make the temporary table ``fusion_scores`` (point_id, topic_id, doc_id, score, rank):
    the fused list of each point (numbered from 1) of ``recipe`` (checked). The caller drops the
    tables (:func:`drop`)."""
    create_rows(con, "fusion_inputs", {"input_position": "integer", "run_id": "varchar"},
                list(enumerate(recipe.runs, start=1)))
    create_rows(con, "fusion_points", {"point_id": "integer", "k": "double", "p": "double"},
                [(number, point.k, point.p) for number, point in enumerate(points, start=1)])
    create_rows(con, "fusion_point_weights", {"point_id": "integer", "input_position": "integer", "weight": "double"},
                [(number, position, weight) for number, point in enumerate(points, start=1)
                 for position, weight in enumerate(point.weights, start=1)])
    settings = {
        "campaign_id": campaign_id,
        "input_ordering": recipe.input_ordering,
        "input_depth": recipe.input_depth or NO_DEPTH_LIMIT,
        "norm_stage": recipe.norm_stage,
        "norm": recipe.norm if recipe.method in SCORE_METHODS else "none",
        "gamma": recipe.gamma,
        "sigma": recipe.sigma,
        "method": recipe.method,
        "absent": recipe.absent,
        "ordered_sum": len(recipe.runs) > 2,
        "output_depth": recipe.output_depth or NO_DEPTH_LIMIT,
        "tie_order": recipe.tie_order,
    }
    use_internal_schema(con)  # fusion_entries reads ranked_entries; con may be a cursor
    for name in STAGES:
        model = sqlfiles.model(f"fusion/{name}.sql")
        # name is one of STAGES, pyeval's own; the values are bound as parameters
        con.execute(f"create or replace temp table {name} as\n{sqlfiles.read(model.path)}", model.bind(settings))
    for name in STAGES[:-1]:
        con.execute(f"drop table {name}")


def drop(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what :func:`stage` made."""
    for name in (*STAGES, *_INPUT_TABLES):
        con.execute(f"drop table if exists {name}")  # pyeval's own names


def point_of(recipe: Recipe) -> Point:
    """The one point of a single recipe."""
    return Point(recipe.k, recipe.p, recipe.weight_list())
