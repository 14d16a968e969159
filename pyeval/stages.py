"""The metric engine's staging API: stage the ranked lists once, run each metric family on them.

A *staging* is a set of sql/evaluation/ files; each makes the temporary table its header
declares (``produces``), from the relations it declares (``reads``), with the parameters it
declares (``params``) taken from one settings mapping (:func:`stage_settings`). The order they
are created in and the stages a family needs are derived from those headers
(:func:`run_stages`). The ad hoc staging is :data:`ADHOC_STAGING`; pyeval/diversity stages a
diversity campaign with its own files and the same functions. Every formula is in sql/metrics/
(one file per family), except for the families registered with a Python driver
(registry.register_driver: pyeval/drivers/), which read their own SQL and return the same long
form. pyeval.evaluation (evaluate, store) and the Spark engine build on this module.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import duckdb

from . import sqlfiles
from .db import create_rows, first_row
from .errors import MeasureParamError
from .gains import define_gain_profile
from .measures import Measure, registry
from .measures.common import BUILTIN_GAIN_PROFILES, STAGING_PARAMS, is_inline_profile

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `pyeval trec_eval` needs none
    import pandas as pd

NO_DEPTH_LIMIT = 2**62

#: The ad hoc staging: files of sql/evaluation/ (creation order comes from their headers). The
#: last three hold a diversity campaign's intents, per-intent judgments of the ranked documents
#: and a composite measure's components (empty for an ad hoc campaign).
ADHOC_STAGING = (
    "evaluation_levels",
    "evaluation_relevant_documents",
    "evaluation_entries",
    "evaluation_ranks",
    "evaluation_lists",
    "evaluation_pairs",
    "topic_judgments",
    "evaluation_gains",
    "evaluation_gain_maxima",
    "evaluation_ideal_gains",
    "evaluation_relevant_ranks",
    "evaluation_intents",
    "evaluation_intent_ranks",
    "evaluation_components",
)

#: The temporary table :func:`compute_into` fills.
VALUES_TABLE = "evaluation_values"


@dataclass(frozen=True)
class FamilyInputs:
    """What a Python family driver (registry.register_driver) is given besides its measures:
    the campaign and the evaluation's settings, as :func:`compute_into` received them."""

    campaign_id: str
    runs: tuple[str, ...]
    ordering: str
    max_depth: int | None
    judged_only: bool
    topics: str
    judgment_set: str = "official"  # the qrels and intents read (docs/judgments.md)


class Staging(Protocol):
    """A staging other than the ad hoc one (pyeval.diversity.Staging)."""

    def stage(self, con, settings: Mapping[str, object]) -> list[str]:
        """Create the staged tables from ``settings`` (:func:`stage_settings`); their names."""



def stage_settings(
    campaign_id: str, runs: Sequence[str], measures: Sequence[Measure], *, ordering: str,
    max_depth: int | None, judged_only: bool, topics: str, judgment_set: str = "official",
) -> dict[str, object]:
    """Every parameter a staging file may declare, for one evaluation of ``measures``: the
    relevance thresholds (``rel``) and gain profiles (``gain``) they ask for, the depth cut
    (:data:`NO_DEPTH_LIMIT` for none), the probability variants read ('given') and whether a
    document with negative levels only counts as judged (not for trec_eval's reading:
    sql/evaluation/evaluation_entries.sql), and the judgment set whose qrels and intents are
    read (docs/judgments.md)."""
    return {
        "campaign_id": campaign_id,
        "judgment_set": judgment_set,
        "runs": list(runs),
        "ordering": ordering,
        "max_depth": NO_DEPTH_LIMIT if max_depth is None else max_depth,
        "judged_only": judged_only,
        "negative_is_judged": False,
        "topic_policy": topics,
        "thresholds": sorted({1} | {m["rel"] for m in measures if m.has("rel") and m["rel"] is not None}),
        "profiles": sorted({m["gain"] for m in measures if m.has("gain")}),
        "variants": ["given"],
    }


def stages_read(files: Iterable[str], staging: Iterable[str] = ADHOC_STAGING) -> set[str]:
    """The tables of ``staging`` (files of sql/evaluation/) that the SQL files ``files`` (paths
    under sql/) declare they read."""
    tables = set(staged_tables(staging))
    return {name for file in files for name in sqlfiles.model(file).reads if name in tables}


def run_stages(con, files: Iterable[str], settings: Mapping[str, object], needed: set[str] | None = None
               ) -> list[str]:
    """Create the table each of ``files`` (sql/evaluation/<file>.sql, or sql/<file>.sql for a
    name with a directory) produces, in the order their headers' ``reads`` require, after the
    evaluation macros, each given the parameters it declares from ``settings``. With ``needed``
    (the tables the metric families read), only those and the stages they are built from are
    created. Returns the tables created."""
    models = sqlfiles.creation_order(_model(file) for file in files)
    if needed is not None:
        wanted = set(needed)
        for model in reversed(models):
            if model.produces in wanted:
                wanted |= set(model.reads)
        models = [model for model in models if model.produces in wanted]
    con.execute(sqlfiles.read("evaluation/macros.sql"))
    for model in models:
        # table names come from pyeval's own headers, never user input
        con.execute(f"create or replace temp table {model.produces} as\n" + sqlfiles.read(model.path),
                    model.bind(settings))
    return [model.produces for model in models]


def _model(file: str) -> sqlfiles.Model:
    return sqlfiles.model(f"{file}.sql" if "/" in file else f"evaluation/{file}.sql")


def staged_tables(files: Iterable[str]) -> list[str]:
    """The tables the staging ``files`` (as :func:`run_stages` takes them) produce."""
    return [_model(file).produces for file in files]


def drop_tables(con, tables: Iterable[str]) -> None:
    """Drop the staged ``tables`` (names from :func:`run_stages`)."""
    for table in tables:
        con.execute(f"drop table if exists {table}")


_DTYPES = {int: "Int64", float: "Float64", str: "string", bool: "boolean"}
_SQL_TYPES = {int: "bigint", float: "double", str: "varchar", bool: "boolean"}


def _requested_params(family: str) -> dict[str, type]:
    """Every parameter any measure of ``family`` declares, with its Python type (not the
    parameters that choose the staging: measures.common.STAGING_PARAMS)."""
    params: dict[str, type] = {}
    for definition in registry.definitions():
        if definition.family == family:
            for param in definition.params:
                if param.name in STAGING_PARAMS:
                    continue
                if definition.family_params is None or param.name in definition.family_params:
                    params.setdefault(param.name, param.type)
    return params


def _requested_rows(family: str, family_measures: list[Measure]) -> list[tuple]:
    """One row per measure: canonical name, kind (declaration name) and every parameter of
    :func:`_requested_params` (None where a measure has no such parameter)."""
    params = _requested_params(family)
    rows = []
    for measure in family_measures:
        values = dict.fromkeys(params)
        values.update({k: v for k, v in measure.values if k in params})
        rows.append((str(measure), measure.kind, *values.values()))
    return rows


def requested_frame(family: str, family_measures: list[Measure]) -> pd.DataFrame:
    """A family's ``requested_measures`` (sql/metrics/ headers) as a DataFrame with nullable
    dtypes (engines that take a frame: Spark)."""
    import pandas as pd

    params = _requested_params(family)
    frame = pd.DataFrame(_requested_rows(family, family_measures), columns=["measure", "kind", *params])
    return frame.astype({name: _DTYPES[kind] for name, kind in params.items()})


def _create_requested(con, family: str, family_measures: list[Measure]) -> None:
    """The family's ``requested_measures`` relation (sql/metrics/ headers)."""
    params = _requested_params(family)
    columns = {"measure": "varchar", "kind": "varchar", **{n: _SQL_TYPES[t] for n, t in params.items()}}
    create_rows(con, "requested_measures", columns, _requested_rows(family, family_measures))


def check_gain_profiles(con, campaign_id: str, measures: Sequence[Measure]) -> None:
    """Every gain profile the measures name exists: built in, stored, or inline (``'0=1,1=4'``,
    stored under that name, which says what it is; :func:`pyeval.evaluation.evaluate` keeps it
    only with a stored evaluation that used it). MeasureParamError for any other name."""
    wanted = {m["gain"] for m in measures if m.has("gain")} - set(BUILTIN_GAIN_PROFILES)
    if not wanted:
        return
    stored = stored_profiles(con, campaign_id)
    for name in sorted(wanted - stored):
        if is_inline_profile(name):
            define_gain_profile(con, campaign_id, name, name)
            stored.add(name)
    unknown = sorted(wanted - stored)
    if unknown:
        raise MeasureParamError(
            f"unknown gain profile {unknown[0]!r} (built in: {', '.join(BUILTIN_GAIN_PROFILES)}; "
            f"stored for campaign '{campaign_id}': {', '.join(sorted(stored)) or 'none'}); "
            "define one with `pyeval gains` and name it: nDCG(gain=NAME)"
        )


def stored_profiles(con, campaign_id: str) -> set[str]:
    """The gain profiles stored for ``campaign_id``."""
    return {row[0] for row in con.execute(
        "select distinct profile from gain_profiles where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}


def take_values(con, measures: Sequence[Measure]) -> pd.DataFrame:
    """The rows of ``evaluation_values`` (which is dropped) in :func:`in_request_order`."""
    try:
        frame = con.execute(f"select * from {VALUES_TABLE}").df()
    finally:
        con.execute(f"drop table {VALUES_TABLE}")
    return in_request_order(frame, measures)


def compute_into(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[Measure],
    *,
    runs: Sequence[str],
    ordering: str = "trec",
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    staging: Staging | None = None,
    judgment_set: str = "official",
) -> None:
    """Compute ``measures`` into the temporary table ``evaluation_values`` (``run_id, topic_id,
    measure, value, value_text``; unordered) over ``staging`` (default: the ad hoc staging, only
    the stages the requested SQL families read). pandas is imported only when a Python family
    computes."""
    create_values(con)
    check_gain_profiles(con, campaign_id, measures)
    settings = stage_settings(campaign_id, runs, measures, ordering=ordering, max_depth=max_depth,
                              judged_only=judged_only, topics=topics, judgment_set=judgment_set)
    families = list(dict.fromkeys(m.family for m in measures))
    sql_families = [family for family in families if registry.driver(family) is None]
    staged: list[str] = []
    try:
        if sql_families:  # Python families stage their own
            if staging is not None:
                staged = staging.stage(con, settings)
            else:
                needed = stages_read(f"metrics/metric_{family}.sql" for family in sql_families)
                staged = run_stages(con, ADHOC_STAGING, settings, needed)
        if "preferences" in families and first_row(
            con, "select count(*) from duckdb_tables() where table_name = 'evaluation_preferences'"
        )[0] == 0:  # the campaign's qrels as preferences, unless the caller staged some (trec_eval -R)
            staged += run_stages(con, ("evaluation_preferences", "preference_closure"), settings)
        for family in families:
            family_measures = [m for m in measures if m.family == family]
            driver = registry.driver(family)
            if driver is not None:  # a family computed in Python (registry.register_driver)
                inputs = FamilyInputs(campaign_id, tuple(runs), ordering, max_depth, judged_only, topics, judgment_set)
                insert_frame(con, driver(con, family_measures, inputs))
                continue
            _create_requested(con, family, family_measures)
            try:
                con.execute(
                    f"insert into {VALUES_TABLE} by name select * from (\n"
                    + sqlfiles.read(f"metrics/metric_{family}.sql") + "\n)"
                )
            except duckdb.InvalidInputException as exc:
                # a family's own error('metric_<family>: ...'): a measure that does not apply
                # to these data (e.g. gdeval's ERR with a gain above 4), not a crash
                text = str(exc)
                marker = f"metric_{family}:"
                if marker not in text:
                    raise
                raise MeasureParamError(text[text.index(marker):]) from None
            finally:
                con.execute("drop table if exists requested_measures")
    finally:
        drop_tables(con, staged)


def create_values(con) -> None:
    """An empty ``evaluation_values``."""
    con.execute(
        f"create or replace temp table {VALUES_TABLE} (run_id varchar, topic_id varchar, "
        "measure varchar, value double, value_text varchar)"
    )


def values_from_frame(con, frame: pd.DataFrame) -> None:
    """``evaluation_values`` holding a long form computed outside :func:`compute_into` (the
    diversity staging; trec_eval's judgment groups and preferences)."""
    create_values(con)
    insert_frame(con, frame)


def insert_frame(con, frame: pd.DataFrame) -> None:
    """Append a long form (``value_text`` optional) to evaluation_values."""
    con.register("computed_frame", frame)
    try:
        columns = [c for c in ("run_id", "topic_id", "measure", "value", "value_text") if c in frame.columns]
        con.execute(f"insert into {VALUES_TABLE} by name select {', '.join(columns)} from computed_frame")
    finally:
        con.unregister("computed_frame")


def in_request_order(frame: pd.DataFrame, measures: Sequence[Measure]) -> pd.DataFrame:
    """Per-topic values sorted by run, topic, then the order the measures were asked in."""
    order = {str(m): i for i, m in enumerate(measures)}
    frame = frame.sort_values(
        ["run_id", "topic_id", "measure"], key=lambda s: s.map(order) if s.name == "measure" else s
    )
    return frame.reset_index(drop=True)
