"""Coverage of a pool and judgment set (docs/pools.md section 3): judged@k and the unjudged
fraction per run and topic (trectools' TrecRun.check_qrel_coverage), the documents of a run's
top k no other team retrieved, and each team's unique relevant documents (annotate-qrels.pl's
group counts), computed in SQL (sql/pools/) and stored in table pool_coverage.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import sqlfiles
from pyeval.storage.public import use_internal_schema
from pyeval.core.db import default_judgment_set, transaction
from ..errors import PyevalError, require_choice
from ..loaders import judgment_sets
from .build import require_pool
from .. import vocabulary
from ..vocabulary import names

if TYPE_CHECKING:  # pandas is imported where a frame is made: `pyeval pool coverage` prints rows without it
    import pandas as pd

GROUPINGS = names(vocabulary.POOL_GROUPINGS)
#: The temporary table :func:`coverage_into` leaves (run_id, topic_id, k, retrieved, judged,
#: relevant, unjudged_fraction, unique_to_team).
ROWS_TABLE = "pool_coverage_rows"


@default_judgment_set()
def coverage(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *, judgment_set: str | None = None,
             runs: Sequence[str] = (), store: bool = True) -> pd.DataFrame:
    """Per run, topic and k (5, 10, 20, 100 and the pool's depth): ``retrieved``, ``judged``,
    ``relevant``, ``unjudged_fraction`` and ``unique_to_team``; stored in pool_coverage
    (replacing that pool's and set's rows) with ``store``."""
    coverage_into(con, campaign_id, pool_name, judgment_set=judgment_set, runs=runs, store=store)
    try:
        return con.execute(f"select * from {ROWS_TABLE} order by run_id, topic_id, k").df()
    finally:
        con.execute(f"drop table if exists {ROWS_TABLE}")


@default_judgment_set()
def coverage_into(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *,
                  judgment_set: str | None = None, runs: Sequence[str] = (), store: bool = True) -> None:
    """:func:`coverage`'s work, leaving its rows in the temporary table :data:`ROWS_TABLE` (the
    caller reads and drops it; no pandas)."""
    pool = require_pool(con, campaign_id, pool_name)
    judgment_sets.require_set(con, campaign_id, judgment_set)
    stored = {r[0] for r in con.execute("select run_id from runs where campaign_id = $c",
                                        {"c": campaign_id}).fetchall()}
    missing = [r for r in runs if r not in stored]
    if missing:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, missing))}")
    path = "pools/pool_coverage.sql"
    bound = sqlfiles.model(path).bind({"campaign_id": campaign_id, "pool_name": pool_name,
                                       "judgment_set": judgment_set, "ordering": pool["ordering"], "runs": list(runs)})
    keys = {"c": campaign_id, "p": pool_name, "s": judgment_set}
    use_internal_schema(con)  # pool_coverage reads ranked_entries; con may be a cursor
    with transaction(con):
        con.execute(f"create or replace temp table {ROWS_TABLE} as\n" + sqlfiles.read(path), bound)
        try:
            if store:
                con.execute("delete from pool_coverage where campaign_id = $c and pool_name = $p and judgment_set = $s "
                            "and (len($r) = 0 or list_contains($r, run_id))", {**keys, "r": list(runs)})
                con.execute("insert into pool_coverage (campaign_id, pool_name, judgment_set, run_id, topic_id, k, "
                            "retrieved, judged, relevant, unjudged_fraction, unique_to_team) select $c, $p, $s, "
                            f"run_id, topic_id, k, retrieved, judged, relevant, unjudged_fraction, unique_to_team "
                            f"from {ROWS_TABLE}", keys)
        except BaseException:
            con.execute(f"drop table if exists {ROWS_TABLE}")
            raise


def summary_rows(con: duckdb.DuckDBPyConnection, pooled: Sequence[str] = (), *, mark: bool = True,
                 table: str = ROWS_TABLE) -> tuple[list[str], list[tuple]]:
    """One row per run of the coverage rows in ``table`` (left by :func:`coverage_into`): the
    mean over topics of judged@k (judged / retrieved at rank <= k, the fraction pyeval's
    Judged@k and ir_measures' Judged give) and of unique_to_team at each k; the run marked
    ``*`` when pooled (``mark``), else followed by a ``pooled`` column. Headers and rows, no
    pandas."""
    # table is pyeval's own name, never user input; the cut-offs are integers read from it
    cutoffs = [int(k) for k, in con.execute(f"select distinct k from {table} order by k").fetchall()]
    columns = ", ".join([f"avg(judged / retrieved) filter (where k = {k})" for k in cutoffs]
                        + [f"avg(unique_to_team) filter (where k = {k})" for k in cutoffs])
    run = ("run_id || case when list_contains($pooled, run_id) then '*' else '' end" if mark
           else "run_id, list_contains($pooled, run_id)")
    rows = con.execute(f"select {run}{', ' if columns else ''}{columns} from {table} group by run_id order by run_id",
                       {"pooled": list(pooled)}).fetchall()
    return (["run_id"] + ([] if mark else ["pooled"]) + [f"judged@{k}" for k in cutoffs]
            + [f"unique@{k}" for k in cutoffs]), rows


def coverage_summary(frame: pd.DataFrame, pooled: Sequence[str] = ()) -> pd.DataFrame:
    """:func:`summary_rows` of a frame :func:`coverage` returned, as a frame with columns
    ``run_id``, ``pooled``, ``judged@k``, ``unique@k``."""
    import pandas as pd

    scratch = duckdb.connect()
    try:
        scratch.register("coverage_frame", frame)
        headers, rows = summary_rows(scratch, pooled, mark=False, table="coverage_frame")
    finally:
        scratch.close()
    return pd.DataFrame(rows, columns=headers)


def _checked(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, judgment_set: str,
             grouping: str) -> dict[str, str]:
    require_pool(con, campaign_id, pool_name)
    judgment_sets.require_set(con, campaign_id, judgment_set)
    require_choice("grouping", grouping, GROUPINGS)
    return {"c": campaign_id, "p": pool_name, "j": judgment_set, "g": grouping}


_ONE_GROUPING = "where campaign_id = $c and pool_name = $p and judgment_set = $j and grouped_by = $g"


@default_judgment_set()
def unique_documents(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *,
                     judgment_set: str | None = None, grouping: str = "team") -> pd.DataFrame:
    """The judged documents of the pool only one team (or run) contributed, with their level
    (``group_name, topic_id, doc_id, level``): the view ``pool_unique_documents`` (gloo-eval.pl's
    unique documents), filtered."""
    keys = _checked(con, campaign_id, pool_name, judgment_set, grouping)
    return con.execute("select group_name, topic_id, doc_id, level from pool_unique_documents "
                       f"{_ONE_GROUPING} order by group_name, topic_id, doc_id", keys).df()


@default_judgment_set()
def unique_relevant(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *,
                    judgment_set: str | None = None, grouping: str = "team") -> pd.DataFrame:
    """Per team (or run) of the pool: its unique judged documents and its unique relevant
    documents (level > 0), as annotate-qrels.pl's counts give them: the view ``unique_relevant``,
    filtered (columns ``team`` or ``run``, ``unique_judged``, ``unique_relevant``)."""
    keys = _checked(con, campaign_id, pool_name, judgment_set, grouping)
    table = con.execute("select group_name, unique_judged, unique_relevant from unique_relevant "
                        f"{_ONE_GROUPING} order by group_name", keys).df()
    return table.rename(columns={"group_name": grouping})
