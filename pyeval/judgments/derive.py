"""Derived judgment sets: made in SQL (sql/judgments/derive_*.sql) from a campaign's stored sets,
stored as a new set with its parents and parameters (docs/judgments.md section 3), and the hole
list of a set (sql/judgments/judgment_holes.sql).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import archive
from pyeval.core import sqlfiles
from pyeval.storage.public import use_internal_schema
from pyeval.core.db import default_judgment_set, first_row, transaction
from ..errors import DataIntegrityError, PyevalError, already_stored, require_choice, with_command_line
from ..loaders import judgment_sets
from ..loaders.judgment_sets import SetProvenance
from .. import vocabulary
from ..vocabulary import names

if TYPE_CHECKING:
    import pandas as pd

#: derivation -> (its SQL file, how many parent sets it takes: None = two or more)
DERIVATIONS = {
    "union": ("judgments/derive_union.sql", None),
    "fill": ("judgments/derive_union.sql", 2),
    "binarise": ("judgments/derive_binarise.sql", 1),
    "common": ("judgments/derive_common.sql", 2),
    "minus": ("judgments/derive_minus.sql", 1),
}
UNION_RULES = names(vocabulary.UNION_RULES)


def derive(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    name: str,
    derivation: str,
    parents: Sequence[str],
    *,
    rule: str = "first",
    threshold: int | None = None,
    excluded: pd.DataFrame | None = None,
    kind: str = "derived",
    description: str | None = None,
    replace: bool = False,
) -> int:
    """Store the judgment set ``name`` of ``campaign_id`` made by ``derivation`` from the sets
    ``parents``; returns its number of judgments.

    - ``union``: parents (two or more) merged, one label per document by ``rule`` (``first``:
      the first parent that judged it, the precedence rule; ``max``; ``min``);
    - ``fill``: the holes of parent A filled from parent B (the union with A first);
    - ``binarise``: 1 where the parent's level >= ``threshold``, else 0;
    - ``common``: parent A restricted to the documents parent B judged too;
    - ``minus``: the parent without the documents of ``excluded`` (``topic_id, doc_id``).

    The intents of the first parent (diversity campaigns) go with the new set. PyevalError for
    an unknown derivation or parent, a wrong number of parents, a missing parameter, or an
    existing set without ``replace``; nothing is stored then.
    """
    judgment_sets.check_name(name)
    require_choice("derivation", derivation, DERIVATIONS)
    path, count = DERIVATIONS[derivation]
    parents = list(dict.fromkeys(parents))
    if (count is None and len(parents) < 2) or (count is not None and len(parents) != count):
        wanted = "two or more" if count is None else str(count)
        raise PyevalError(f"derivation {derivation} takes {wanted} parent sets; got {len(parents)}")
    if name in parents:
        raise PyevalError(f"the derived set '{name}' cannot be one of its parents")
    for parent in parents:
        judgment_sets.require_set(con, campaign_id, parent)
    parameters: dict[str, object] = {}
    bound: dict[str, object] = {"campaign_id": campaign_id}
    if derivation in ("union", "fill"):
        require_choice("rule", rule, UNION_RULES)
        rule = "first" if derivation == "fill" else rule
        bound.update(parents=parents, rule=rule)
        parameters["rule"] = rule
    elif derivation == "binarise":
        if threshold is None or threshold < 1:
            needs = "derivation binarise needs a threshold of at least 1"
            raise with_command_line(PyevalError(f"{needs} (threshold=2, say)"), f"{needs} (e.g. --threshold 2)")
        highest = first_row(con, "select max(level) from qrels_by_set where campaign_id = $c and judgment_set = $s",
                            {"c": campaign_id, "s": parents[0]})[0]
        if highest is not None and threshold > highest:
            raise PyevalError(f"threshold {threshold} is above the highest level of set '{parents[0]}' ({highest}): "
                              "every judgment would be non-relevant")
        bound.update(parent=parents[0], threshold=int(threshold))
        parameters["threshold"] = int(threshold)
    elif derivation == "common":
        bound.update(parent=parents[0], other=parents[1])
    else:
        if excluded is None:
            raise PyevalError("derivation minus needs the documents to exclude (topic_id, doc_id)")
        missing = {"topic_id", "doc_id"} - set(excluded.columns)
        if missing:
            raise PyevalError(f"the excluded documents need columns topic_id and doc_id; missing {sorted(missing)}")
        bound.update(parent=parents[0])
        parameters["excluded_documents"] = int(len(excluded))
    if excluded is not None:
        con.register("excluded_documents_frame", excluded[["topic_id", "doc_id"]].astype(str))
    try:
        return _store(con, campaign_id, name, derivation, parents, path, bound, parameters, kind, description,
                      replace, excluded is not None)
    finally:
        if excluded is not None:
            con.unregister("excluded_documents_frame")


def _store(con, campaign_id, name, derivation, parents, path, bound, parameters, kind, description, replace,
           has_excluded) -> int:
    model = sqlfiles.model(path)
    with transaction(con):
        keys = {"c": campaign_id, "s": name}
        if first_row(con, "select count(*) from judgment_sets where campaign_id = $c and judgment_set = $s", keys)[0]:
            if name == judgment_sets.DEFAULT_SET:
                raise PyevalError("the official set is loaded, never derived (pyeval load qrels)")
            if not replace:
                raise already_stored(f"campaign '{campaign_id}' already has judgment set '{name}'", them=False)
            con.execute("delete from qrels_by_set where campaign_id = $c and judgment_set = $s", keys)
            con.execute("delete from intents_by_set where campaign_id = $c and judgment_set = $s", keys)
        if has_excluded:
            con.execute("create or replace temp table excluded_documents as select distinct topic_id, doc_id "
                        "from excluded_documents_frame")
        try:
            con.execute("create or replace temp table derived_judgments as\n" + sqlfiles.read(path),
                        model.bind(bound))
        finally:
            con.execute("drop table if exists excluded_documents")
        try:
            rows, digest = first_row(
                con,
                "select count(*), sha256(coalesce(string_agg(topic_id || chr(9) || intent_id || chr(9) || doc_id "
                "|| chr(9) || level, chr(10) order by topic_id, intent_id, doc_id), '')) from derived_judgments",
            )
            if not rows:
                raise DataIntegrityError(f"derivation {derivation} of {', '.join(parents)} judges nothing; "
                                         f"judgment set '{name}' not stored")
            con.execute("insert into qrels_by_set (campaign_id, judgment_set, topic_id, intent_id, doc_id, level) "
                        "select $c, $s, topic_id, intent_id, doc_id, level from derived_judgments", keys)
        finally:
            con.execute("drop table if exists derived_judgments")
        con.execute(
            "insert into intents_by_set (campaign_id, judgment_set, topic_id, intent_id, probability, intent_type) "
            "select campaign_id, $s, topic_id, intent_id, probability, intent_type from intents_by_set "
            "where campaign_id = $c and judgment_set = $p",
            {**keys, "p": parents[0]},
        )
        label = f"<{derivation} of {', '.join(parents)}>"
        con.execute("delete from campaign_inputs where campaign_id = $c and judgment_set = $s", keys)
        con.execute(
            "insert into campaign_inputs (campaign_id, input_kind, source_file, source_sha256, row_count, "
            "judgment_set) values ($c, 'qrels', $label, $sha, $rows, $s)",
            {**keys, "label": label, "sha": digest, "rows": rows},
        )
        archive.refresh(con, campaign_id)  # values computed from the replaced set turn stale
        judgment_sets.record_set(con, campaign_id, name, SetProvenance(
            kind=kind, description=description, parent_sets=tuple(parents), derivation=derivation,
            parameters=parameters), source_file=None, source_sha256=digest)
    return int(rows)


@default_judgment_set()
def holes(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str | None = None, *, depth: int = 10,
          runs: Sequence[str] = ()) -> pd.DataFrame:
    """The hole list of ``judgment_set``: documents ``runs`` (default every run) retrieved at
    rank <= ``depth`` that the set does not judge (``topic_id, doc_id, best_rank, runs``)."""
    judgment_sets.require_set(con, campaign_id, judgment_set)
    if depth < 1:
        raise PyevalError(f"depth must be a positive integer; got {depth}")
    model = sqlfiles.model("judgments/judgment_holes.sql")
    use_internal_schema(con)  # judgment_holes reads ranked_entries; con may be a cursor
    return con.execute(
        # ordered outside the query: DuckDB 1.4 finds its output's topic_id ambiguous in its own order by
        "select * from (\n" + sqlfiles.read("judgments/judgment_holes.sql") + "\n) as holes order by topic_id, best_rank, doc_id",
        model.bind({"campaign_id": campaign_id, "judgment_set": judgment_set, "depth": depth, "runs": list(runs)}),
    ).df()
