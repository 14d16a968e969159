"""A judged pool loaded back (docs/pools.md section 2): the judgment set made from the file
assessors returned is linked to its pool in the set's provenance (judgment_sets.parameters), by
name (`pyeval load qrels --from-pool NAME`) or found when the set judges exactly the documents of
one of the campaign's pools (the pool's export, judged).
"""
from __future__ import annotations

import json

import duckdb

from pyeval.core.db import first_row
from ..errors import PyevalError
from ..loaders import judgment_sets
from .build import require_pool

#: How a set judges a pool: its documents, those the set judges, and the set's judgments of
#: documents outside the pool.
_COUNTS = (
    "with pooled as (select topic_id, doc_id from pool_documents where campaign_id = $c and pool_name = $p), "
    "judged as (select distinct topic_id, doc_id from qrels where campaign_id = $c and judgment_set = $s) "
    "select (select count(*) from pooled), "
    "(select count(*) from pooled semi join judged using (topic_id, doc_id)), "
    "(select count(*) from judged anti join pooled using (topic_id, doc_id))")


def matching_pools(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> list[str]:
    """The campaign's pools whose documents are exactly the documents ``judgment_set`` judges
    (latest built first)."""
    names = [r[0] for r in con.execute("select pool_name from pools where campaign_id = $c "
                                       "order by created_at desc, pool_name", {"c": campaign_id}).fetchall()]
    found = []
    for name in names:
        documents, judged, outside = first_row(con, _COUNTS, {"c": campaign_id, "p": name, "s": judgment_set})
        if documents == judged and outside == 0:
            found.append(name)
    return found


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
        if first_row(con, "select count(*) from pools where campaign_id = $c", {"c": campaign_id})[0] == 0:
            return None
        found = matching_pools(con, campaign_id, judgment_set)
        if not found:
            return None
        pool_name, how = found[0], "matched"
    else:
        how = "given"
    pool = require_pool(con, campaign_id, pool_name)
    documents, judged, outside = first_row(con, _COUNTS, {"c": campaign_id, "p": pool_name, "s": judgment_set})
    if judged == 0:
        raise PyevalError(f"judgment set '{judgment_set}' judges none of the {documents} documents of pool "
                          f"'{pool_name}'; is it that pool's judged export?")
    link = {"pool": pool_name, "pool_created_at": str(pool["created_at"]), "pool_documents": int(documents),
            "judged_pool_documents": int(judged), "judgments_outside_pool": int(outside), "linked": how}
    row = first_row(con, "select parameters from judgment_sets where campaign_id = $c and judgment_set = $s",
                    {"c": campaign_id, "s": judgment_set})
    parameters = json.loads(row[0]) if row and row[0] else {}
    parameters.update(link)
    con.execute("update judgment_sets set parameters = $j where campaign_id = $c and judgment_set = $s",
                {"j": json.dumps(parameters, sort_keys=True), "c": campaign_id, "s": judgment_set})
    return link
