"""Judgment sets: the named qrels (and intents) of a campaign and their provenance (table
judgment_sets; docs/judgments.md). Every campaign's default set is ``official``; others are
loaded (``pyeval load qrels --judgments NAME``) or derived from stored sets
(pyeval/judgments/derive.py).
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import duckdb

from pyeval.core.db import check_judgment_set, first_row
from ..errors import DataIntegrityError, PyevalError, require_choice, require_printable
from .. import vocabulary
from ..vocabulary import names

DEFAULT_SET = "official"
KINDS = names(vocabulary.JUDGMENT_SET_KINDS)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,99}")


@dataclass(frozen=True)
class SetProvenance:
    """Who or what made a judgment set (the columns of judgment_sets a loader fills)."""

    kind: str = "human"
    judge: str | None = None
    guideline_sha256: str | None = None
    description: str | None = None
    parent_sets: tuple[str, ...] = ()
    derivation: str | None = None
    parameters: Mapping[str, object] | None = None


def check_name(judgment_set: str) -> None:
    """PyevalError for a set name that is not a word of letters, digits and ``_.:+-``."""
    if not isinstance(judgment_set, str) or not _NAME.fullmatch(judgment_set):
        raise PyevalError(f"judgment set name {judgment_set!r}: use letters, digits and _ . : + - "
                          "(starting with a letter or digit, at most 100 characters)")


def check_kind(kind: str) -> None:
    require_choice("judgment set kind", kind, KINDS)


def check_provenance(provenance: SetProvenance) -> None:
    """PyevalError for a provenance that is not one: an unknown kind, a judge's name holding a
    control character."""
    check_kind(provenance.kind)
    require_printable("judge", provenance.judge)


def set_names(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[str]:
    """The campaign's judgment sets, by name."""
    return [r[0] for r in con.execute(
        "select judgment_set from judgment_sets where campaign_id = $c order by judgment_set", {"c": campaign_id}
    ).fetchall()]


def require_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> None:
    """PyevalError unless the campaign has the judgment set (naming the campaign a set of
    another campaign belongs to)."""
    if judgment_set == DEFAULT_SET and DEFAULT_SET not in set_names(con, campaign_id):
        raise PyevalError(f"campaign '{campaign_id}' has no judgment set '{DEFAULT_SET}' (no qrels loaded)")
    check_judgment_set(con, campaign_id, judgment_set)


def check_new_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str, qrels_kind: str,
                  label: str, topics_relation: str) -> None:
    """A set other than ``official`` joins a campaign that has its official qrels, of the same
    kind (ad hoc or diversity), judging only topics of the campaign's topic set: else
    DataIntegrityError naming ``label`` (the input) and the first foreign topic.
    ``topics_relation`` is a relation of pyeval's own with a ``topic_id`` column."""
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    if row is None or row[0] is None:
        raise DataIntegrityError(f"{label}: campaign '{campaign_id}' has no official qrels yet; load them "
                                 f"first (without --judgments), then judgment set '{judgment_set}'")
    if row[0] != qrels_kind:
        raise DataIntegrityError(f"{label}: judgment set '{judgment_set}' holds {qrels_kind} qrels, and "
                                 f"campaign '{campaign_id}' {row[0]} qrels")
    foreign = first_row(
        con,
        f"select topic_id, count(*) over () from (select distinct topic_id from {topics_relation}) as given "
        "where topic_id not in (select topic_id from topics where campaign_id = $c) order by topic_id limit 1",
        {"c": campaign_id},
    )
    if foreign is not None:
        raise DataIntegrityError(
            f"{label}: judges topic '{foreign[0]}' ({foreign[1]} topics in all) that campaign "
            f"'{campaign_id}' does not have; a judgment set judges the campaign's topics")


def record_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str, provenance: SetProvenance,
               source_file: str | None = None, source_sha256: str | None = None) -> None:
    """Insert or replace the judgment_sets row of a set (inside the caller's transaction)."""
    check_provenance(provenance)
    con.execute("delete from judgment_sets where campaign_id = $c and judgment_set = $s",
                {"c": campaign_id, "s": judgment_set})
    con.execute(
        "insert into judgment_sets (campaign_id, judgment_set, kind, judge, guideline_sha256, description, "
        "parent_sets, derivation, parameters, source_file, source_sha256) values ($c, $s, $kind, $judge, "
        "$guideline, $description, $parents, $derivation, $parameters, $file, $sha)",
        {"c": campaign_id, "s": judgment_set, "kind": provenance.kind, "judge": provenance.judge,
         "guideline": provenance.guideline_sha256, "description": provenance.description,
         "parents": list(provenance.parent_sets), "derivation": provenance.derivation,
         "parameters": None if provenance.parameters is None else json.dumps(provenance.parameters, sort_keys=True),
         "file": source_file, "sha": source_sha256},
    )


def set_default(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> None:
    """Make ``judgment_set`` the campaign's default set: from now on every relation that names no
    set (qrels, intents, scores, run_means, leaderboard, monthly_means, the overviews) shows that
    set's rows. A leave-one-group-out working set of a pool analysis cannot be the default."""
    from pyeval.core.db import transaction, unknown_campaign

    if first_row(con, "select 1 from campaigns where campaign_id = $c", {"c": campaign_id}) is None:
        raise unknown_campaign(con, campaign_id)
    require_set(con, campaign_id, judgment_set)
    working = first_row(con, "select working_set from judgment_sets where campaign_id = $c and judgment_set = $s",
                        {"c": campaign_id, "s": judgment_set})
    if working is not None and working[0]:
        raise PyevalError(f"judgment set '{judgment_set}' is a leave-one-group-out working set of a pool "
                          f"analysis (pyeval pool loo); it cannot be the default set of campaign '{campaign_id}'")
    with transaction(con):
        con.execute("update campaigns set default_judgment_set = $s where campaign_id = $c",
                    {"c": campaign_id, "s": judgment_set})


def sets_frame(con: duckdb.DuckDBPyConnection, campaign_id: str | None = None, *, working: bool = False):
    """The judgment sets (of one campaign, or all) with their judgment counts, as a DataFrame;
    ``default`` says which is the campaign's default set. The leave-one-group-out working sets of
    pool analyses (judgment_sets.working_set) only with ``working``."""
    return con.execute(
        "select s.campaign_id, s.judgment_set, "
        "(s.judgment_set = (select c.default_judgment_set from campaigns as c where c.campaign_id = s.campaign_id)) "
        "as \"default\", s.kind, s.judge, s.parent_sets, s.derivation, s.parameters, "
        "(select count(*) from qrels_by_set as q where q.campaign_id = s.campaign_id and q.judgment_set = s.judgment_set) "
        "as judgments, "
        "(select count(distinct q.topic_id) from qrels_by_set as q where q.campaign_id = s.campaign_id "
        "and q.judgment_set = s.judgment_set) as topics, "
        "s.guideline_sha256, s.source_file, s.source_sha256, s.description, s.created_at, "
        "s.working_set from judgment_sets as s where ($c is null or s.campaign_id = $c) and ($w or not s.working_set) "
        "order by s.campaign_id, s.judgment_set",
        {"c": campaign_id, "w": working},
    ).df()


def names_of(values: Sequence[str]) -> list[str]:
    """The set names given, without repeats, each checked."""
    for value in values:
        check_name(value)
    return list(dict.fromkeys(values))


def file_sha256(path: str) -> str:
    """The sha256 of a file's bytes (a prompt or guidelines file)."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
