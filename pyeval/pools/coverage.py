"""Coverage of a pool and judgment set (docs/pools.md section 3): judged@k and the unjudged
fraction per run and topic (trectools' TrecRun.check_qrel_coverage), the documents of a run's
top k no other team retrieved, and each team's unique relevant documents (annotate-qrels.pl's
group counts), computed in SQL (sql/pools/) and stored in table pool_coverage.
"""
from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pandas as pd

from .. import sqlfiles
from ..db import transaction
from ..errors import PyevalError
from ..loaders import judgment_sets
from .build import require_pool
from .. import vocabulary
from ..vocabulary import names

GROUPINGS = names(vocabulary.POOL_GROUPINGS)


def coverage(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *, judgment_set: str = "official",
             runs: Sequence[str] = (), store: bool = True) -> pd.DataFrame:
    """Per run, topic and k (5, 10, 20, 100 and the pool's depth): ``retrieved``, ``judged``,
    ``relevant``, ``unjudged_fraction`` and ``unique_to_team``; stored in pool_coverage
    (replacing that pool's and set's rows) with ``store``."""
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
    with transaction(con):
        con.execute("create or replace temp table pool_coverage_rows as\n" + sqlfiles.read(path), bound)
        try:
            if store:
                con.execute("delete from pool_coverage where campaign_id = $c and pool_name = $p and judgment_set = $s "
                            "and (len($r) = 0 or list_contains($r, run_id))", {**keys, "r": list(runs)})
                con.execute("insert into pool_coverage (campaign_id, pool_name, judgment_set, run_id, topic_id, k, "
                            "retrieved, judged, relevant, unjudged_fraction, unique_to_team) select $c, $p, $s, "
                            "run_id, topic_id, k, retrieved, judged, relevant, unjudged_fraction, unique_to_team "
                            "from pool_coverage_rows", keys)
            frame = con.execute("select * from pool_coverage_rows order by run_id, topic_id, k").df()
        finally:
            con.execute("drop table if exists pool_coverage_rows")
    return frame


def coverage_summary(frame: pd.DataFrame, pooled: Sequence[str] = ()) -> pd.DataFrame:
    """One row per run: the mean over topics of judged@k (judged / retrieved at rank <= k, the
    fraction pyeval's Judged@k and ir_measures' Judged give) and of unique_to_team at each k, with
    the pooled mark; columns ``judged@k``, ``unique@k``."""
    if frame.empty:
        return pd.DataFrame(columns=["run_id", "pooled"])
    part = frame.assign(judged_fraction=frame["judged"] / frame["retrieved"])
    judged = part.pivot_table(index="run_id", columns="k", values="judged_fraction", aggfunc="mean")
    unique = part.pivot_table(index="run_id", columns="k", values="unique_to_team", aggfunc="mean")
    judged.columns = [f"judged@{k}" for k in judged.columns]
    unique.columns = [f"unique@{k}" for k in unique.columns]
    table = judged.join(unique).reset_index()
    table.insert(1, "pooled", table["run_id"].isin(set(pooled)))
    return table


def unique_documents(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *,
                     judgment_set: str = "official", grouping: str = "team") -> pd.DataFrame:
    """The judged documents of the pool only one team (or run) contributed, with their level
    (``group_name, topic_id, doc_id, level``)."""
    require_pool(con, campaign_id, pool_name)
    judgment_sets.require_set(con, campaign_id, judgment_set)
    if grouping not in GROUPINGS:
        raise PyevalError(f"grouping must be one of {', '.join(GROUPINGS)}; got {grouping!r}")
    path = "pools/pool_unique_documents.sql"
    bound = sqlfiles.model(path).bind({"campaign_id": campaign_id, "pool_name": pool_name,
                                       "judgment_set": judgment_set, "grouping": grouping})
    return con.execute(sqlfiles.read(path) + "\norder by group_name, topic_id, doc_id", bound).df()


def unique_relevant(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str, *,
                    judgment_set: str = "official", grouping: str = "team") -> pd.DataFrame:
    """Per team (or run) of the pool: its pooled documents, its unique judged documents and its
    unique relevant documents (level > 0), as annotate-qrels.pl's counts give them."""
    unique = unique_documents(con, campaign_id, pool_name, judgment_set=judgment_set, grouping=grouping)
    column = "coalesce(team, run_id)" if grouping == "team" else "run_id"
    groups = con.execute(f"select distinct {column} as group_name from pool_runs where campaign_id = $c and "
                         "pool_name = $p order by 1", {"c": campaign_id, "p": pool_name}).df()
    counts = unique.groupby("group_name").agg(unique_judged=("doc_id", "size"),
                                              unique_relevant=("level", lambda levels: int((levels > 0).sum())))
    table = groups.merge(counts, on="group_name", how="left").fillna({"unique_judged": 0, "unique_relevant": 0})
    table[["unique_judged", "unique_relevant"]] = table[["unique_judged", "unique_relevant"]].astype(int)
    return table.rename(columns={"group_name": grouping})
