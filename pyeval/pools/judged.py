"""A judged pool loaded back (docs/pools.md section 2): the judgment set made from the file
assessors returned is linked to its pool in the set's provenance (judgment_sets.parameters), by
name (`pyeval load qrels --from-pool NAME`) or found when the set judges exactly the documents of
one of the campaign's pools (the pool's export, judged).
"""
from __future__ import annotations

import json

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
from ..errors import PyevalError
from ..loaders import judgment_sets
from .build import require_pool


def _judgment_counts(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str,
                     pool_name: str | None = None) -> list[tuple]:
    """How ``judgment_set`` judges each pool of the campaign (or ``pool_name``), latest pool
    first: ``(pool_name, created_at, documents, judged, outside)`` (sql/pools/pool_judgment_counts.sql)."""
    return con.execute(sqlfiles.read("pools/pool_judgment_counts.sql"),
                       {"campaign_id": campaign_id, "judgment_set": judgment_set, "pool_name": pool_name}).fetchall()


def _judged_exactly(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> list[tuple]:
    """The counts of the pools whose documents are exactly those ``judgment_set`` judges."""
    return [row for row in _judgment_counts(con, campaign_id, judgment_set) if row[2] == row[3] and row[4] == 0]


def matching_pools(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> list[str]:
    """The campaign's pools whose documents are exactly the documents ``judgment_set`` judges
    (latest built first)."""
    return [row[0] for row in _judged_exactly(con, campaign_id, judgment_set)]


def link_judgments(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str,
                   pool_name: str | None = None) -> dict | None:
    """Record in ``judgment_set``'s provenance (judgment_sets.parameters, keys kept) the pool it
    judges: ``pool_name``, or, when None, the pool whose documents are exactly the set's judged
    documents (none: nothing recorded, None returned). Recorded: ``pool``, ``pool_created_at``,
    ``pool_documents``, ``judged_pool_documents``, ``judgments_outside_pool`` and ``linked``
    (``given`` or ``matched``); returned as a dict. PyevalError for an unknown pool or a set
    that judges none of its documents. Runs inside the caller's transaction."""
    judgment_sets.require_set(con, campaign_id, judgment_set)
    if pool_name is None:
        found = _judged_exactly(con, campaign_id, judgment_set)
        if not found:
            return None
        counts, how = found[0], "matched"
    else:
        require_pool(con, campaign_id, pool_name)
        (counts,), how = _judgment_counts(con, campaign_id, judgment_set, pool_name), "given"
    pool_name, created_at, documents, judged, outside = counts
    if judged == 0:
        raise PyevalError(f"judgment set '{judgment_set}' judges none of the {documents} documents of pool "
                          f"'{pool_name}'; is it that pool's judged export?")
    link = {"pool": pool_name, "pool_created_at": str(created_at), "pool_documents": int(documents),
            "judged_pool_documents": int(judged), "judgments_outside_pool": int(outside), "linked": how}
    row = first_row(con, "select parameters from judgment_sets where campaign_id = $c and judgment_set = $s",
                    {"c": campaign_id, "s": judgment_set})
    parameters = json.loads(row[0]) if row and row[0] else {}
    parameters.update(link)
    con.execute("update judgment_sets set parameters = $j where campaign_id = $c and judgment_set = $s",
                {"j": json.dumps(parameters, sort_keys=True), "c": campaign_id, "s": judgment_set})
    return link
