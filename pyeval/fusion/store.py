"""Fused runs as stored, derived runs: stored in runs and run_entries like a loaded run, with
their recipe and parents in run_derivations and run_derivation_parents (docs/fusion.md)."""
from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import archive
from pyeval.core import sqlfiles
from pyeval.core.db import first_row, transaction
from ..errors import DataIntegrityError, PyevalError, already_stored, require_printable
from . import compute
from .recipe import Recipe

if TYPE_CHECKING:
    import pandas as pd


def _run_file_sql() -> str:
    return sqlfiles.read("fusion/run_file_lines.sql")


def run_sha256(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> str:
    """The sha256 of the TREC run file :func:`export_run` writes for a stored run."""
    return first_row(
        con, f"select sha256(string_agg(line || chr(10), '' order by file_position)) from ({_run_file_sql()})",
        {"campaign_id": campaign_id, "run_id": run_id, "run_tag": run_id})[0]


def derivation(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> Recipe | None:
    """The stored recipe of a fused run (None: the run is not a fused run)."""
    row = first_row(con, "select parameters from run_derivations where campaign_id = $c and run_id = $r",
                    {"c": campaign_id, "r": run_id})
    if row is None:
        return None
    parents = [r[0] for r in con.execute(
        "select parent_run_id from run_derivation_parents where campaign_id = $c and run_id = $r "
        "order by input_position", {"c": campaign_id, "r": run_id}).fetchall()]
    parameters = json.loads(row[0])
    return Recipe.from_parameters(parents, {"method": parameters.pop("method"), **parameters})


def check_name(con: duckdb.DuckDBPyConnection, campaign_id: str, name: str, recipe: Recipe, replace: bool) -> None:
    """PyevalError unless ``name`` may become the fused run: a TREC run tag (no whitespace), not
    one of its own parents, and not taken (or, with ``replace``, taken by a fused run)."""
    if not name or re.search(r"\s", name):
        raise PyevalError(f"a fused run's name is its TREC run tag: it must be non-empty, without spaces; got {name!r}")
    require_printable("a fused run's name", name)
    if name in recipe.runs:
        raise PyevalError(f"the fused run cannot replace its own input '{name}'")
    taken = first_row(con, "select 1 from runs where campaign_id = $c and run_id = $r", {"c": campaign_id, "r": name})
    if taken is None:
        return
    if not replace:
        raise already_stored(f"campaign '{campaign_id}' already has a run named '{name}'",
                             python_remedy="give another name or replace=True replaces it",
                             cli_remedy="give another --name or use --replace")
    if derivation(con, campaign_id, name) is None:
        raise DataIntegrityError(f"run '{name}' of campaign '{campaign_id}' is a loaded run, not a fused one: "
                                 "a fused run replaces only a fused run (choose another --name)")
    children = _children(con, campaign_id, name)
    if children:
        raise DataIntegrityError(f"fused run '{name}' is an input of fused run(s) {', '.join(children)}; "
                                 "delete those first (pyeval delete-run)")


def _children(con, campaign_id: str, run_id: str) -> list[str]:
    return [row[0] for row in con.execute(
        "select distinct run_id from run_derivation_parents where campaign_id = $c and parent_run_id = $r "
        "and run_id <> $r order by run_id", {"c": campaign_id, "r": run_id}).fetchall()]


def store_staged(con: duckdb.DuckDBPyConnection, campaign_id: str, name: str, recipe: Recipe) -> str:
    """Store point 1 of the staged ``fusion_scores`` as run ``name`` with its derivation, inside
    the caller's transaction (replacing a fused run of that name, whose metadata and tags stay).
    Returns the run's sha256."""
    from .. import __version__

    keys = {"c": campaign_id, "r": name}
    kept = first_row(con, "select system, team, run_date from runs where campaign_id = $c and run_id = $r", keys)
    for table in ("run_entries", "runs", "run_derivations", "run_derivation_parents"):  # pyeval's own names
        con.execute(f"delete from {table} where campaign_id = $c and run_id = $r", keys)
    con.execute(sqlfiles.read("fusion/fused_run_insert.sql"), {"campaign_id": campaign_id, "run_id": name})
    sha256 = run_sha256(con, campaign_id, name)
    system, team, run_date = kept if kept is not None else (None, None, None)
    con.execute(
        "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256, system, team, run_date) "
        "values ($c, $r, $r, $source, $sha, $system, $team, $date)",
        {**keys, "source": recipe.describe(), "sha": sha256, "system": system, "team": team, "date": run_date})
    con.execute(
        "insert into run_derivations (campaign_id, run_id, method, parameters, pyeval_version) "
        "values ($c, $r, $method, $parameters, $version)",
        {**keys, "method": recipe.method, "parameters": json.dumps(recipe.parameters(), sort_keys=True),
         "version": __version__})
    con.execute(
        "insert into run_derivation_parents (campaign_id, run_id, input_position, parent_run_id, parent_sha256) "
        "select $c, $r, fusion_inputs.input_position, runs.run_id, runs.source_sha256 from fusion_inputs "
        "inner join runs on runs.campaign_id = $c and runs.run_id = fusion_inputs.run_id", keys)
    archive.refresh(con, campaign_id)  # a replaced fused run's stored values turn stale
    return sha256


def fuse(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    runs: list[str] | tuple[str, ...],
    method: str,
    *,
    name: str | None = None,
    replace: bool = False,
    **conventions,
) -> pd.DataFrame:
    """Fuse stored runs of ``campaign_id`` by ``method`` (a :class:`Recipe`'s keywords give the
    conventions: weights, norm, norm_stage, absent, k, p, input_depth, output_depth,
    input_ordering, tie_order; defaults follow ranx's ``fuse``).

    Returns the fused run, one row per (topic, rank): ``topic_id, doc_id, rank, score``. With
    ``name``, the run is stored as a derived run of the campaign (its recipe and parents with
    it), all or nothing; ``replace`` replaces a fused run of that name.
    """
    recipe = Recipe(method, tuple(runs), **conventions).checked()
    compute.check_inputs(con, campaign_id, recipe)
    if name is not None:
        check_name(con, campaign_id, name, recipe, replace)
    try:
        compute.stage(con, campaign_id, recipe, [compute.point_of(recipe)])
        frame = con.execute("select topic_id, doc_id, rank, score from fusion_scores order by topic_id, rank").df()
        if name is not None:
            with transaction(con):
                sha256 = store_staged(con, campaign_id, name, recipe)
            frame.attrs.update(run_id=name, sha256=sha256)
    finally:
        compute.drop(con)
    frame.attrs["recipe"] = recipe
    return frame


def refresh(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> pd.DataFrame:
    """Make a fused run again from its stored recipe and its parents as they are now."""
    recipe = derivation(con, campaign_id, run_id)
    if recipe is None:
        raise PyevalError(f"run '{run_id}' of campaign '{campaign_id}' is not a fused run")
    values = recipe.parameters()
    values.pop("method")
    return fuse(con, campaign_id, recipe.runs, recipe.method, name=run_id, replace=True, **values)


def delete_run(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> None:
    """Delete a stored run with its tags, its recorded relations, snapshot and ir-metadata
    (``run_relations`` as reproduction or as original, ``run_snapshots``, ``run_metadata``) and,
    for a fused run, its derivation, all or nothing; refused while a fused run is made from it.
    Its stored scores stay in score_history (and turn stale), as do the repro and longitudinal
    results that read it."""
    keys = {"c": campaign_id, "r": run_id}
    if first_row(con, "select 1 from runs where campaign_id = $c and run_id = $r", keys) is None:
        raise PyevalError(f"campaign '{campaign_id}' has no run named '{run_id}'")
    children = _children(con, campaign_id, run_id)
    if children:
        raise DataIntegrityError(f"run '{run_id}' is an input of fused run(s) {', '.join(children)}: "
                                 "delete those first, or the recipes would name a run that is gone")
    with transaction(con):
        for table in ("run_entries", "run_tags", "runs", "run_derivations", "run_derivation_parents", "run_relations",
                      "run_snapshots", "run_metadata"):
            con.execute(f"delete from {table} where campaign_id = $c and run_id = $r", keys)  # pyeval's own names
        con.execute("delete from run_relations where original_campaign_id = $c and original_run_id = $r", keys)
        archive.refresh(con, campaign_id)  # the deleted run's stored values turn stale


def _require_run(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> None:
    """PyevalError unless ``campaign_id`` holds the run ``run_id``."""
    if first_row(con, "select 1 from runs where campaign_id = $c and run_id = $r",
                 {"c": campaign_id, "r": run_id}) is None:
        raise PyevalError(f"campaign '{campaign_id}' has no run named '{run_id}'")


def export_run(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str,
               path: str | os.PathLike[str] | None = None, *, replace: bool = False) -> str:
    """The TREC run file of a stored run (``topic Q0 docno rank score tag``, in file order, the
    tag the run's name); written to ``path`` when given (a new file, or with ``replace`` an
    existing regular file; never the warehouse, a link, a device or a FIFO:
    :func:`pyeval.storage.ownership.write_output`). A fused run's file has the run's sha256."""
    from pyeval.storage.ownership import write_output

    _require_run(con, campaign_id, run_id)
    lines = con.execute(f"select line from ({_run_file_sql()}) order by file_position",
                        {"campaign_id": campaign_id, "run_id": run_id, "run_tag": run_id}).fetchall()
    text = "".join(line + "\n" for (line,) in lines)
    if path is not None:
        write_output(con, path, "run file", text, replace=replace)
    return text


def export_run_parquet(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str,
                       path: str | os.PathLike[str], *, replace: bool = False) -> int:
    """Write a stored run to ``path`` as a Parquet file with the columns the run loader reads
    (``query_id, doc_id, score, rank, run_tag``, in file order, the tag the run's name:
    sql/loaders/run_parquet_rows.sql), checked and swapped in as :func:`export_run`'s file
    (:func:`pyeval.storage.ownership.write_output`). Returns the rows written."""
    from pyeval.storage.ownership import write_output

    _require_run(con, campaign_id, run_id)
    keys = {"campaign_id": campaign_id, "run_id": run_id}
    select = sqlfiles.read("loaders/run_parquet_rows.sql")
    write_output(con, path, "run file", lambda temporary: con.execute(
        f"copy ({select}) to $path (format parquet)", {**keys, "run_tag": run_id, "path": str(temporary)}),
        replace=replace)
    return first_row(con, "select count(*) from run_entries where campaign_id = $campaign_id and run_id = $run_id",
                     keys)[0]


def derived_runs(con: duckdb.DuckDBPyConnection, campaign_id: str | None = None) -> pd.DataFrame:
    """The fused runs (view derived_run_status with their recipes): campaign_id, run_id,
    method, parents, is_stale, parameters."""
    return con.execute(
        "select status.campaign_id, status.run_id, status.method, status.parents, status.is_stale, "
        "run_derivations.parameters from derived_run_status as status inner join run_derivations "
        "on status.campaign_id = run_derivations.campaign_id and status.run_id = run_derivations.run_id "
        "where $c is null or status.campaign_id = $c order by status.campaign_id, status.run_id",
        {"c": campaign_id}).df()
