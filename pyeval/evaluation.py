"""Evaluating runs: stage the ranked lists once, run each metric family's SQL, store the scores.

The driver validates, binds and executes; every formula is in sql/metrics/ (one file per
family) and sql/evaluation/ (staging and topic aggregation), except for the families registered
with a Python driver (registry.register_driver: the ndeval family and the U-measures in
pyeval/drivers/), which compute from their own SQL fetches and return the same long form.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from . import sqlfiles
from .db import create_rows, first_row, transaction
from .errors import (
    DataIntegrityError,
    MeasureParamError,
    PyevalError,
    UnknownCampaignError,
)
from .gains import define_gain_profile
from .measures import Measure, make, parse_measures, registry
from .measures.common import BUILTIN_GAIN_PROFILES, STAGING_PARAMS, is_inline_profile  # noqa: F401  (BUILTIN_GAIN_PROFILES: this module's API)

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `pyeval trec_eval` needs none
    import pandas as pd

#: ranked_entries' ordering policies (sql/views/ranked_entries.sql): trec_eval's, the same with
#: docno ascending on ties (pyndeval, ir_measures' judged and compat providers), the rank
#: column, file order
ORDERINGS = ("trec", "trec-asc", "rank", "file")
TOPIC_POLICIES = ("qrels", "intersection")
NO_DEPTH_LIMIT = 2**62

#: Temporary relations an evaluation stages, in creation order. The last three hold a diversity
#: campaign's intents, per-intent judgments of the ranked documents and a composite measure's
#: components (empty for an ad hoc campaign; pyeval/diversity stages diversity evaluations).
_STAGES = (
    "evaluation_levels",
    "evaluation_ranks",
    "evaluation_lists",
    "evaluation_pairs",
    "evaluation_topics",
    "evaluation_gains",
    "evaluation_gain_maxima",
    "evaluation_ideal_gains",
    "evaluation_relevant_ranks",
    "evaluation_intents",
    "evaluation_intent_ranks",
    "evaluation_components",
)


@dataclass(frozen=True)
class FamilyInputs:
    """What a Python family driver (registry.register_driver) is given besides its measures:
    the campaign and the evaluation's settings, as :func:`compute` received them."""

    campaign_id: str
    runs: tuple[str, ...]
    ordering: str
    max_depth: int | None
    judged_only: bool
    topics: str


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    per_topic: long form ``run_id, topic_id, measure, value`` (numeric measures);
    texts: long form of text-valued measures (``RelString``), not stored;
    means: ``run_id, measure, value, topics`` (each measure's declared aggregate);
    evaluation_id: the stored evaluation, or None when not stored.
    """

    per_topic: pd.DataFrame
    texts: pd.DataFrame
    means: pd.DataFrame
    evaluation_id: int | None

    def wide(self) -> pd.DataFrame:
        """Means as a run x measure table (for display), measures in the requested order."""
        order = list(dict.fromkeys(self.means["measure"]))
        table = self.means.pivot(index="run_id", columns="measure", values="value")
        return table[order]


def with_default_gain(measures: Iterable[str | Measure], profile: str) -> list[Measure]:
    """Give ``gain=profile`` to every measure that has a gain parameter left at its default."""
    chosen = []
    for measure in _measures_iv(measures):
        params = dict(measure.values)
        if "gain" in params and params["gain"] == measure.definition.param("gain").default:
            params["gain"] = profile
            measure = make(measure.definition, **params)
        chosen.append(measure)
    return chosen


def _measures_iv(measures: Iterable[str | Measure]) -> list[Measure]:
    parsed = [m for item in measures for m in ([item] if isinstance(item, Measure) else parse_measures(item))]
    if not parsed:
        raise PyevalError("no measure requested (e.g. -m AP -m nDCG@10)")
    return list(dict.fromkeys(parsed))


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


def _requested_frame(family: str, family_measures: list[Measure]) -> pd.DataFrame:
    """The rows of :func:`_requested_rows` as a DataFrame with nullable dtypes (engines that
    take a frame: Spark)."""
    import pandas as pd

    params = _requested_params(family)
    frame = pd.DataFrame(_requested_rows(family, family_measures), columns=["measure", "kind", *params])
    return frame.astype({name: _DTYPES[kind] for name, kind in params.items()})


def _create_requested(con, family: str, family_measures: list[Measure]) -> None:
    """The family's ``requested_measures`` relation (sql/metrics/ header comments)."""
    params = _requested_params(family)
    columns = {"measure": "varchar", "kind": "varchar", **{n: _SQL_TYPES[t] for n, t in params.items()}}
    create_rows(con, "requested_measures", columns, _requested_rows(family, family_measures))


def _stage(
    con, campaign_id, runs, ordering, max_depth, judged_only, topic_policy, thresholds, profiles,
    variants=("given",), needed: set[str] | None = None,
) -> None:
    parameters = {
        "evaluation_levels": {"campaign_id": campaign_id},
        "evaluation_ranks": {
            "campaign_id": campaign_id, "ordering": ordering, "runs": runs,
            "max_depth": max_depth, "judged_only": judged_only,
        },
        "evaluation_lists": {
            "campaign_id": campaign_id, "runs": runs, "max_depth": max_depth,
            "judged_only": judged_only,
        },
        "evaluation_pairs": {"runs": runs, "topic_policy": topic_policy, "max_depth": max_depth,
                             "judged_only": judged_only},
        "evaluation_topics": {"thresholds": thresholds},
        "evaluation_gains": {"campaign_id": campaign_id},
        "evaluation_gain_maxima": {"campaign_id": campaign_id},
        "evaluation_ideal_gains": {"profiles": profiles},
        "evaluation_relevant_ranks": {"profiles": profiles},
        "evaluation_intents": {"campaign_id": campaign_id, "variants": list(variants)},
        "evaluation_intent_ranks": {"campaign_id": campaign_id},
        "evaluation_components": {},
    }
    files = {"evaluation_topics": "topic_judgments"}
    run_stages(con, [(stage, files.get(stage, stage), parameters[stage]) for stage in _STAGES], needed)


def stages_read(files: Iterable[str], stages: Sequence[str] = _STAGES) -> set[str]:
    """The staged tables that the SQL files ``files`` (paths under sql/) read, by name."""
    return {name for file in files for name in sqlfiles.relations(file, stages)}


def run_stages(con, stages: Sequence[tuple[str, str, dict]], needed: set[str] | None = None) -> None:
    """Create each ``(temp table, sql/evaluation/<file>.sql, parameters)`` in order, after the
    evaluation macros. With ``needed`` (the tables the metric families read), only those and
    the stages they are built from, found by name in each stage's SQL, are created."""
    if needed is not None:
        needed = set(needed)
        names = [table for table, _, _ in stages]
        for table, file, _ in reversed(stages):
            if table in needed:
                needed |= sqlfiles.relations(f"evaluation/{file}.sql", names[: names.index(table)])
        stages = [stage for stage in stages if stage[0] in needed]
    con.execute(sqlfiles.read("evaluation/macros.sql"))
    for table, file, parameters in stages:
        # table and file names are constants of pyeval, never user input
        con.execute(
            f"create or replace temp table {table} as\n" + sqlfiles.read(f"evaluation/{file}.sql"),
            parameters,
        )


def _drop_stages(con, extra: Sequence[str] = ()) -> None:
    for stage in (*_STAGES, *extra):
        con.execute(f"drop table if exists {stage}")


#: The temporary table :func:`compute_into` fills.
VALUES_TABLE = "evaluation_values"


def compute(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[Measure],
    *,
    runs: Sequence[str],
    ordering: str = "trec",
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    staging=None,
) -> pd.DataFrame:
    """Per-topic values of ``measures``: long form ``run_id, topic_id, measure, value,
    value_text`` (text measures' values in ``value_text``), sorted by run, topic and the order
    the measures were asked in. See :func:`compute_into`."""
    compute_into(con, campaign_id, measures, runs=runs, ordering=ordering, max_depth=max_depth,
                 judged_only=judged_only, topics=topics, staging=staging)
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
    staging=None,
) -> None:
    """Compute ``measures`` into the temporary table ``evaluation_values`` (``run_id, topic_id,
    measure, value, value_text``; unordered). pandas is imported only when a Python family or a
    diversity campaign computes.

    Only the stages the requested families read are built (:func:`run_stages`). Diversity
    measures (D-, DIN-, IA-measures, I-rec, ...) are staged by pyeval/diversity, which calls
    back :func:`compute` with its ``staging`` (an object whose ``stage`` replaces
    :func:`_stage`)."""
    own_judged_only = [m for m in measures if _has(m, "judged_only") and m["judged_only"]]
    if own_judged_only and not judged_only:  # measures with judged_only=True: their own pass
        _compute_judged_only_apart(con, campaign_id, measures, own_judged_only, runs=runs, ordering=ordering,
                                   max_depth=max_depth, topics=topics, staging=staging)
        return
    if staging is None and any(m.definition.staging != "adhoc" for m in measures):
        from . import diversity  # imported only for measures that read a diversity staging

        frame = diversity.compute(  # which computes its parts through compute()
            con, campaign_id, measures, runs=runs, ordering=ordering, max_depth=max_depth,
            judged_only=judged_only, topics=topics,
        )
        values_from_frame(con, frame)
        return
    _create_values(con)
    _gain_profiles_iv(con, campaign_id, measures)
    thresholds = sorted({1} | {m["rel"] for m in measures if _has(m, "rel") and m["rel"] is not None})
    depth = NO_DEPTH_LIMIT if max_depth is None else max_depth
    profiles = sorted({m["gain"] for m in measures if _has(m, "gain")})
    families = list(dict.fromkeys(m.family for m in measures))
    sql_families = [family for family in families if registry.driver(family) is None]
    if sql_families:  # Python families stage their own
        if staging is not None:
            staging.stage(con, campaign_id, list(runs), ordering, depth, judged_only, topics, thresholds, profiles)
        else:
            needed = stages_read(f"metrics/metric_{family}.sql" for family in sql_families)
            _stage(con, campaign_id, list(runs), ordering, depth, judged_only, topics, thresholds, profiles,
                   needed=needed)
    own_preferences = "preferences" in families and first_row(
        con, "select count(*) from duckdb_tables() where table_name = 'evaluation_preferences'"
    )[0] == 0
    if own_preferences:
        from .loaders.prefs import stage_closure

        con.execute(
            "create temp table evaluation_preferences as\n"
            + sqlfiles.read("evaluation/evaluation_preferences.sql"),
            {"campaign_id": campaign_id},
        )
        stage_closure(con)
    try:
        for family in families:
            family_measures = [m for m in measures if m.family == family]
            driver = registry.driver(family)
            if driver is not None:  # a family computed in Python (registry.register_driver)
                inputs = FamilyInputs(campaign_id, tuple(runs), ordering, max_depth, judged_only, topics)
                _insert_frame(con, driver(con, family_measures, inputs))
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
        _drop_stages(con, staging.tables if staging is not None else ())
        if own_preferences:
            from .loaders.prefs import drop_preferences

            drop_preferences(con)


def _compute_judged_only_apart(con, campaign_id, measures, judged, **settings) -> None:
    """:func:`compute_into` of the measures with ``judged_only=True`` (staged with the
    unjudged documents dropped, as the evaluation's ``judged_only`` does), then of the others."""
    compute_into(con, campaign_id, judged, judged_only=True, **settings)
    con.execute(f"create or replace temp table evaluation_judged_values as select * from {VALUES_TABLE}")
    try:
        rest = [m for m in measures if m not in judged]
        if rest:
            compute_into(con, campaign_id, rest, judged_only=False, **settings)
        else:
            _create_values(con)
        con.execute(f"insert into {VALUES_TABLE} select * from evaluation_judged_values")
    finally:
        con.execute("drop table if exists evaluation_judged_values")


def _create_values(con) -> None:
    con.execute(
        f"create or replace temp table {VALUES_TABLE} (run_id varchar, topic_id varchar, "
        "measure varchar, value double, value_text varchar)"
    )


def values_from_frame(con, frame: pd.DataFrame) -> None:
    """``evaluation_values`` holding a long form computed outside :func:`compute_into` (the
    diversity staging; trec_eval's judgment groups and preferences)."""
    _create_values(con)
    _insert_frame(con, frame)


def _insert_frame(con, frame: pd.DataFrame) -> None:
    """Append a Python family's long form (``value_text`` optional) to evaluation_values."""
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


def _gain_profiles_iv(con, campaign_id: str, measures: Sequence[Measure]) -> None:
    """Every gain profile the measures name exists: built in, stored, or inline (``'0=1,1=4'``,
    stored under that name, which says what it is; :func:`evaluate` keeps it only with a stored
    evaluation that used it)."""
    wanted = {m["gain"] for m in measures if _has(m, "gain")} - set(BUILTIN_GAIN_PROFILES)
    if not wanted:
        return
    stored = _stored_profiles(con, campaign_id)
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


def _has(measure: Measure, name: str) -> bool:
    return any(key == name for key, _ in measure.values)


def means_into(con: duckdb.DuckDBPyConnection, measures: Sequence[Measure], table: str) -> None:
    """The temporary table ``table`` (``run_id, measure, value, topics``) of
    sql/evaluation/means.sql over the relation ``evaluation_scores`` the caller provides."""
    create_rows(con, "requested_aggregates", {"measure": "varchar", "aggregate": "varchar"},
                [(str(m), m.definition.aggregate) for m in measures])
    try:
        # table is a name chosen by pyeval, never user input
        con.execute(f"create or replace temp table {table} as\n" + sqlfiles.read("evaluation/means.sql"))
    finally:
        con.execute("drop table requested_aggregates")


def _settings_iv(ordering: str, topics: str, max_depth: int | None) -> None:
    if ordering not in ORDERINGS:
        raise PyevalError(f"ordering must be one of {', '.join(ORDERINGS)}; got {ordering!r}")
    if topics not in TOPIC_POLICIES:
        raise PyevalError(f"topics must be one of {', '.join(TOPIC_POLICIES)}; got {topics!r}")
    if max_depth is not None and max_depth < 1:
        raise PyevalError(f"max_depth must be a positive integer; got {max_depth}")


def _runs_iv(con, campaign_id: str, runs: Sequence[str] | None, any_qrels: bool = False) -> list[str]:
    """The runs to evaluate; ``any_qrels``: the measures read diversity qrels as well."""
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    if row is None:
        raise UnknownCampaignError(f"campaign '{campaign_id}' does not exist")
    if row[0] == "diversity" and not any_qrels:
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has diversity qrels; ad hoc measures need ad hoc qrels "
            "(evaluate their diversity versions, such as D_nDCG@10, IA_nDCG@10 or IRec@10, or a "
            "2T conversion: pyeval to-traditional)"
        )
    stored = [r[0] for r in con.execute(
        "select run_id from runs where campaign_id = $c order by run_id", {"c": campaign_id}
    ).fetchall()]
    if runs is None or len(runs) == 0:
        if not stored:
            raise PyevalError(f"campaign '{campaign_id}' has no runs")
        return stored
    missing = [r for r in runs if r not in stored]
    if missing:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, missing))}")
    return list(dict.fromkeys(runs))


def evaluate(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Iterable[str | Measure],
    *,
    runs: Sequence[str] | None = None,
    ordering: str = "trec",
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    store: bool = True,
) -> Evaluation:
    """Evaluate runs of a campaign and (by default) store the per-topic scores.

    Parameters
    ----------
    measures
        Measure names (``'AP'``, ``'nDCG@10'``, trec_eval aliases such as ``'map'``) or
        :class:`~pyeval.measures.Measure` values.
    runs
        Run names; default every run of the campaign.
    ordering
        ``trec`` (score desc, docno desc; default), ``trec-asc`` (score desc, docno asc),
        ``rank`` (rank column) or ``file``.
    max_depth
        Keep only the first ``max_depth`` documents of each list after ordering (trec_eval -M).
    judged_only
        Drop unjudged documents before scoring (trec_eval -J).
    topics
        ``qrels`` (every judged topic; a topic missing from a run scores the measure's empty
        value, trec_eval -c) or ``intersection`` (topics the run has).
    store
        Record the evaluation and insert its per-topic values (the public view ``scores``).
    """
    parsed, evaluation_id = _evaluate_into(con, campaign_id, measures, runs=runs, ordering=ordering,
                                           max_depth=max_depth, judged_only=judged_only, topics=topics, store=store)
    return _evaluation_frames(con, parsed, evaluation_id)


@dataclass(frozen=True)
class Summary:
    """The means of an evaluation as plain rows (:func:`evaluate_summary`; no pandas)."""

    measures: list[str]  # the numeric measures, in the order they were asked for
    rows: list[tuple]  # (run_id, one mean per measure, None where a run has none), by run_id
    evaluation_id: int | None


def evaluate_summary(
    con: duckdb.DuckDBPyConnection, campaign_id: str, measures: Iterable[str | Measure], **settings
) -> Summary:
    """:func:`evaluate` (same keywords) returning only the means, run by measure, computed,
    stored and combined in SQL: what ``pyeval evaluate`` prints, without pandas."""
    parsed, evaluation_id = _evaluate_into(con, campaign_id, measures, **settings)
    try:
        names = [str(m) for m in parsed if m.definition.storable]
        means: dict[str, dict[str, float]] = {}
        for run_id, measure, value in con.execute(f"select run_id, measure, value from {MEANS_TABLE}").fetchall():
            means.setdefault(run_id, {})[measure] = value
    finally:
        _drop_results(con)
    rows = [(run_id, *(means[run_id].get(name) for name in names)) for run_id in sorted(means)]
    return Summary(names, rows, evaluation_id)


#: The temporary tables an evaluation leaves for its caller (:func:`finish_into`): the numeric
#: per-topic values (what is stored) and their means by run.
SCORES_TABLE = "evaluation_scores"
MEANS_TABLE = "evaluation_run_means"


def _evaluate_into(
    con: duckdb.DuckDBPyConnection, campaign_id: str, measures: Iterable[str | Measure], *, store: bool = True,
    runs: Sequence[str] | None = None, ordering: str = "trec", max_depth: int | None = None,
    judged_only: bool = False, topics: str = "qrels",
) -> tuple[list[Measure], int | None]:
    """:func:`evaluate`'s work (its keywords): validate, compute into ``evaluation_values``,
    then :func:`finish_into`."""
    _settings_iv(ordering, topics, max_depth)
    parsed = _measures_iv(measures)
    # the Python families (ndeval, umeasure) read per-intent judgments and check their own qrels
    run_ids = _runs_iv(
        con, campaign_id, runs,
        any_qrels=all(registry.driver(m.family) or m.definition.staging != "adhoc" for m in parsed),
    )
    inline = sorted({m["gain"] for m in parsed if _has(m, "gain") and is_inline_profile(m["gain"])}
                    - _stored_profiles(con, campaign_id))
    kept = False
    try:
        compute_into(con, campaign_id, parsed, runs=run_ids, ordering=ordering, max_depth=max_depth,
                     judged_only=judged_only, topics=topics)
        settings = {"runs": run_ids, "max_depth": max_depth, "judged_only": judged_only, "topics": topics}
        evaluation_id = finish_into(con, campaign_id, parsed, ordering, settings, store)
        kept = evaluation_id is not None
    finally:
        if inline and not kept:  # an inline profile stays only with the evaluation that used it
            con.execute("delete from gain_profiles where campaign_id = $c and list_contains($p, profile)",
                        {"c": campaign_id, "p": inline})
    return parsed, evaluation_id


def _stored_profiles(con, campaign_id: str) -> set[str]:
    return {row[0] for row in con.execute(
        "select distinct profile from gain_profiles where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}


def finish(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    parsed: Sequence[Measure],
    frame: pd.DataFrame,
    ordering: str,
    settings: dict,
    store: bool,
) -> Evaluation:
    """:func:`finish_into` for values another engine computed (a frame ``run_id, topic_id,
    measure, value[, value_text]``), as an :class:`Evaluation`."""
    values_from_frame(con, frame)
    evaluation_id = finish_into(con, campaign_id, parsed, ordering, settings, store)
    return _evaluation_frames(con, parsed, evaluation_id)


def finish_into(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    parsed: Sequence[Measure],
    ordering: str,
    settings: dict,
    store: bool,
) -> int | None:
    """From ``evaluation_values`` (whatever engine filled it): the numeric measures' values as
    :data:`SCORES_TABLE`, their means (each measure's declared aggregate,
    sql/evaluation/means.sql) as :data:`MEANS_TABLE`, and (``store``, when there are values)
    the stored evaluation with ``settings``, whose id is returned."""
    numeric = [m for m in parsed if m.definition.storable]
    create_rows(con, "requested_order", {"measure": "varchar", "position": "integer", "storable": "boolean"},
                [(str(m), position, m.definition.storable) for position, m in enumerate(parsed)])
    con.execute(
        f"create or replace temp table {SCORES_TABLE} as select values.run_id, values.topic_id, "
        f"values.measure, values.value from {VALUES_TABLE} as values "
        "inner join requested_order on values.measure = requested_order.measure where requested_order.storable"
    )
    means_into(con, numeric, MEANS_TABLE)
    if not store or not first_row(con, f"select count(*) from {SCORES_TABLE}")[0]:
        return None
    return _store(con, campaign_id, ordering, {"measures": [str(m) for m in numeric], **settings}, numeric)


def _evaluation_frames(con: duckdb.DuckDBPyConnection, parsed: Sequence[Measure], evaluation_id: int | None
                       ) -> Evaluation:
    """The :class:`Evaluation` of the tables :func:`finish_into` left (which it drops): rows by
    run, topic and the order the measures were asked in."""
    try:
        per_topic = con.execute(
            f"select scores.run_id, scores.topic_id, scores.measure, scores.value from {SCORES_TABLE} as scores "
            "inner join requested_order on scores.measure = requested_order.measure "
            "order by scores.run_id, scores.topic_id, requested_order.position"
        ).df()
        texts = con.execute(
            f"select values.* from {VALUES_TABLE} as values "
            "inner join requested_order on values.measure = requested_order.measure "
            "where not requested_order.storable "
            "order by values.run_id, values.topic_id, requested_order.position"
        ).df()
        means = con.execute(
            f"select means.* from {MEANS_TABLE} as means "
            "inner join requested_order on means.measure = requested_order.measure "
            "order by means.run_id, requested_order.position"
        ).df()
    finally:
        _drop_results(con)
    return Evaluation(per_topic, texts, means, evaluation_id)


def _drop_results(con: duckdb.DuckDBPyConnection) -> None:
    for table in (VALUES_TABLE, SCORES_TABLE, MEANS_TABLE, "requested_order"):
        con.execute(f"drop table if exists {table}")  # pyeval's own names


def _measure_rows(measures: Sequence[Measure]) -> list[tuple]:
    """One row per stored measure: what its canonical name meant (evaluation_measures)."""
    import json  # only a stored evaluation needs it (the drop-ins import this module)

    return [
        (str(m), m.name, m.family, json.dumps(dict(m.values), sort_keys=True), m.definition.aggregate,
         m["gain"] if _has(m, "gain") else None)
        for m in measures
    ]


def _store(
    con,
    campaign_id: str,
    ordering: str,
    settings: dict,
    measures: Sequence[Measure],
) -> int:
    """Record one evaluation, all or nothing: its settings, inputs (sha256), measures, and the
    per-topic values and means of :data:`SCORES_TABLE` and :data:`MEANS_TABLE`. Nothing stored
    is ever updated or deleted afterwards."""
    import json

    from . import __version__

    records = _measure_rows(measures)
    profiles = sorted({record[-1] for record in records if record[-1] is not None})
    create_rows(con, "new_measures", {"measure": "varchar", "measure_name": "varchar", "family": "varchar",
                                      "parameters": "varchar", "aggregate": "varchar", "gain_profile": "varchar"},
                records)
    try:
        with transaction(con):
            evaluation_id = first_row(con, "select coalesce(max(evaluation_id), 0) + 1 from evaluations")[0]
            keys = {"id": evaluation_id, "campaign_id": campaign_id}
            con.execute(
                "insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering, settings) "
                "values ($id, $campaign_id, $version, $ordering, $settings)",
                {**keys, "version": __version__, "ordering": ordering, "settings": json.dumps(settings)},
            )
            con.execute(
                "insert into topic_scores (evaluation_id, campaign_id, run_id, topic_id, measure, value) "
                f"select $id, $campaign_id, run_id, topic_id, measure, value from {SCORES_TABLE}",
                keys,
            )
            con.execute(sqlfiles.read("evaluation/record_inputs.sql"),
                        {**keys, "runs": settings["runs"], "profiles": profiles})
            con.execute(
                "insert into evaluation_measures (evaluation_id, measure, measure_name, family, parameters, "
                "aggregate, gain_profile) select $id, measure, measure_name, family, parameters, aggregate, "
                "gain_profile from new_measures",
                {"id": evaluation_id},
            )
            con.execute(
                "insert into evaluation_means (evaluation_id, campaign_id, run_id, measure, value, topics) "
                f"select $id, $campaign_id, run_id, measure, value, topics from {MEANS_TABLE}",
                keys,
            )
    finally:
        con.execute("drop table if exists new_measures")
    return evaluation_id
