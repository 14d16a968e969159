"""Evaluating runs: validate the request, compute the per-topic values, store the scores.

This module validates, dispatches and stores; the values come from the metric engine's staging
API (pyeval.stages: ad hoc campaigns, and the Python family drivers) or, for diversity
measures, from pyeval.diversity, which stages a diversity campaign through the same API. Every
formula is in sql/metrics/ (one file per family) and sql/evaluation/ (staging and topic
aggregation), or in a registered Python driver (pyeval/drivers/).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from . import diversity, sqlfiles
from .db import check_judgment_set, create_rows, first_row, transaction, unknown_campaign
from .errors import (
    DataIntegrityError,
    PyevalError,
    with_command_line,
)
from .measures import Measure, make, parse_measures, registry
from .measures.common import is_inline_profile
from .stages import VALUES_TABLE, create_values, stored_profiles, take_values, values_from_frame
from .stages import compute_into as compute_staged_into

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `pyeval trec_eval` needs none
    import pandas as pd

#: ranked_entries' ordering policies (sql/views/ranked_entries.sql): trec_eval's, the same with
#: docno ascending on ties (pyndeval, ir_measures' judged and compat providers), the rank
#: column, file order
ORDERINGS = ("trec", "trec-asc", "rank", "file")
TOPIC_POLICIES = ("qrels", "intersection")


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


def summed_measures(names: Iterable[str]) -> list[str]:
    """The names among ``names`` of measures whose topics are summed, not averaged (counts such
    as NumRet, trec_eval's num_* lines): whole numbers, printed as integers."""
    summed = []
    for name in names:
        try:
            parsed = parse_measures(name)
        except PyevalError:
            continue
        if len(parsed) == 1 and parsed[0].definition.aggregate == "sum":
            summed.append(name)
    return summed


def with_default_gain(measures: Iterable[str | Measure], profile: str) -> list[Measure]:
    """Give ``gain=profile`` to every measure that has a gain parameter left at its default."""
    chosen = []
    for measure in parse_requested(measures):
        params = dict(measure.values)
        if "gain" in params and params["gain"] == measure.definition.param("gain").default:
            params["gain"] = profile
            measure = make(measure.definition, **params)
        chosen.append(measure)
    return chosen


def read_only(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con``'s database is attached read-only (pyeval.connect(..., read_only=True))."""
    row = first_row(con, "select readonly from duckdb_databases() where database_name = current_database()")
    return bool(row and row[0])


def parse_requested(measures: Iterable[str | Measure]) -> list[Measure]:
    """The measures asked for (names or Measure values), parsed, without repeats, in order;
    PyevalError when there are none."""
    if isinstance(measures, (str, Measure)):  # evaluate(con, c, "AP"): one measure, not its letters
        measures = [measures]
    parsed = [m for item in measures for m in ([item] if isinstance(item, Measure) else parse_measures(item))]
    if not parsed:
        raise with_command_line(PyevalError("no measure requested (measures=['AP', 'nDCG@10'], say)"),
                                "no measure requested (e.g. -m AP -m nDCG@10)")
    return list(dict.fromkeys(parsed))


def with_default_probs(measures: Iterable[str | Measure], variant: str) -> list[Measure]:
    """Give ``probs=variant`` to every measure that has a probs parameter left at its declared
    default (``ndeval`` for ndeval's names, ``given`` for the others)."""
    chosen = []
    for measure in parse_requested(measures):
        params = dict(measure.values)
        if "probs" in params and params["probs"] == measure.definition.param("probs").default:
            params["probs"] = variant
            measure = make(measure.definition, **params)
        chosen.append(measure)
    return chosen


def orderings(measures: Sequence[Measure], ordering: str | None) -> dict[str, list[str]]:
    """Which ordering ranks each measure's lists: ``ordering`` for all when given, else each
    measure's declared one (MeasureDef.ordering: the order its name's tool reads a run in), as
    ``{ordering: [measure names]}``; stored with an evaluation's settings."""
    chosen: dict[str, list[str]] = {}
    for measure in measures:
        chosen.setdefault(ordering or measure.definition.ordering, []).append(str(measure))
    return chosen


def ordering_column(used: dict[str, list[str]]) -> str:
    """``evaluations.ordering`` of an evaluation that used ``used`` (:func:`orderings`): the
    one ordering, or ``per-measure`` (the settings' ``orderings`` say which)."""
    return next(iter(used)) if len(used) == 1 else "per-measure"


def compute(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[Measure],
    *,
    runs: Sequence[str],
    ordering: str | None = None,
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    judgment_set: str = "official",
) -> pd.DataFrame:
    """Per-topic values of ``measures``: long form ``run_id, topic_id, measure, value,
    value_text`` (text measures' values in ``value_text``), sorted by run, topic and the order
    the measures were asked in. See :func:`compute_into`."""
    compute_into(con, campaign_id, measures, runs=runs, ordering=ordering, max_depth=max_depth,
                 judged_only=judged_only, topics=topics, judgment_set=judgment_set)
    return take_values(con, measures)


def compute_into(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[Measure],
    *,
    runs: Sequence[str],
    ordering: str | None = None,
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    judgment_set: str = "official",
) -> None:
    """Compute ``measures`` into the temporary table ``evaluation_values`` (``run_id, topic_id,
    measure, value, value_text``; unordered): diversity measures (D-, DIN-, IA-measures, I-rec,
    ...) through pyeval.diversity, the others on the ad hoc staging
    (:func:`pyeval.stages.compute_into`). ``ordering`` None: each measure ranked as its
    declaration says (:func:`orderings`), one pass per ordering."""
    used = orderings(measures, ordering)
    if len(used) > 1:
        groups = {chosen: [m for m in measures if str(m) in names] for chosen, names in used.items()}
        _compute_apart(con, campaign_id, groups, runs=runs, max_depth=max_depth, judged_only=judged_only,
                       topics=topics)
        return
    ordering = next(iter(used), ordering or "trec")
    own_judged_only = [m for m in measures if m.has("judged_only") and m["judged_only"]]
    if own_judged_only and not judged_only:  # measures with judged_only=True: their own pass
        _compute_judged_only_apart(con, campaign_id, measures, own_judged_only, runs=runs, ordering=ordering,
                                   max_depth=max_depth, topics=topics, judgment_set=judgment_set)
        return
    settings = {"runs": runs, "ordering": ordering, "max_depth": max_depth, "judged_only": judged_only,
                "topics": topics, "judgment_set": judgment_set}
    if any(m.definition.staging != "adhoc" for m in measures):
        values_from_frame(con, diversity.compute(con, campaign_id, measures, **settings))
    else:
        compute_staged_into(con, campaign_id, measures, **settings)


def _compute_apart(con, campaign_id: str, groups: dict[str, list[Measure]], **settings) -> None:
    """:func:`compute_into` of each group of measures under its ordering (the key), into one
    ``evaluation_values``."""
    create_values(con)
    con.execute(f"create or replace temp table evaluation_ordered_values as select * from {VALUES_TABLE}")
    try:
        for chosen, group in groups.items():
            compute_into(con, campaign_id, group, ordering=chosen, **settings)
            con.execute(f"insert into evaluation_ordered_values select * from {VALUES_TABLE}")
        con.execute(f"create or replace temp table {VALUES_TABLE} as select * from evaluation_ordered_values")
    finally:
        con.execute("drop table if exists evaluation_ordered_values")


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
            create_values(con)
        con.execute(f"insert into {VALUES_TABLE} select * from evaluation_judged_values")
    finally:
        con.execute("drop table if exists evaluation_judged_values")


def means_into(con: duckdb.DuckDBPyConnection, measures: Sequence[Measure], table: str, *,
               in_topic_order: bool = False) -> None:
    """The temporary table ``table`` (``run_id, measure, value, topics``) of
    sql/evaluation/means.sql over the relation ``evaluation_scores`` the caller provides
    (``in_topic_order``: means as trec_eval adds them, for its drop-in)."""
    create_rows(con, "requested_aggregates", {"measure": "varchar", "aggregate": "varchar"},
                [(str(m), m.definition.aggregate) for m in measures])
    try:
        # table is a name chosen by pyeval, never user input
        con.execute(f"create or replace temp table {table} as\n" + sqlfiles.read("evaluation/means.sql"),
                    {"in_topic_order": in_topic_order})
    finally:
        con.execute("drop table requested_aggregates")


def check_settings(ordering: str | None, topics: str, max_depth: int | None) -> None:
    """PyevalError for an unknown ordering (None: each measure's own) or topic policy, or a
    depth below 1."""
    if ordering is not None and ordering not in ORDERINGS:
        raise PyevalError(f"ordering must be one of {', '.join(ORDERINGS)}; got {ordering!r}")
    if topics not in TOPIC_POLICIES:
        raise PyevalError(f"topics must be one of {', '.join(TOPIC_POLICIES)}; got {topics!r}")
    if max_depth is not None and max_depth < 1:
        raise PyevalError(f"max_depth must be a positive integer; got {max_depth}")


def campaign_runs(con, campaign_id: str, runs: Sequence[str] | None, any_qrels: bool = False) -> list[str]:
    """The runs to evaluate (default: every run of the campaign); ``any_qrels``: the measures
    read diversity qrels as well. PyevalError naming what is missing."""
    if isinstance(runs, str):  # runs="r1": one run, not its letters
        runs = [runs]
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    if row is None:
        raise unknown_campaign(con, campaign_id)
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
    ordering: str | None = None,
    max_depth: int | None = None,
    judged_only: bool = False,
    topics: str = "qrels",
    store: bool = True,
    judgment_set: str = "official",
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
        ``trec`` (score desc, docno desc), ``trec-asc`` (score desc, docno asc), ``rank``
        (rank column) or ``file``, for every measure; default None: each measure's own, the
        order its name's tool reads (``trec``; ``rank`` for ndeval's names, ``file`` for
        NTCIREVAL's and cwl_eval's; docs/measures.md).
    max_depth
        Keep only the first ``max_depth`` documents of each list after ordering (trec_eval -M).
    judged_only
        Drop unjudged documents before scoring (trec_eval -J).
    topics
        ``qrels`` (every judged topic; a topic missing from a run scores the measure's empty
        value, trec_eval -c) or ``intersection`` (topics the run has).
    store
        Record the evaluation and insert its per-topic values (the public view ``scores``).
    judgment_set
        The campaign's judgment set whose qrels and intents are read (``official`` by default;
        docs/judgments.md); stored with every score and mean.
    """
    parsed, evaluation_id = _evaluate_into(con, campaign_id, measures, runs=runs, ordering=ordering,
                                           max_depth=max_depth, judged_only=judged_only, topics=topics, store=store,
                                           judgment_set=judgment_set)
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
    runs: Sequence[str] | None = None, ordering: str | None = None, max_depth: int | None = None,
    judged_only: bool = False, topics: str = "qrels", judgment_set: str = "official",
) -> tuple[list[Measure], int | None]:
    """:func:`evaluate`'s work (its keywords): validate, compute into ``evaluation_values``,
    then :func:`finish_into`."""
    check_settings(ordering, topics, max_depth)
    if store and read_only(con):
        raise PyevalError("the warehouse is open read-only: evaluate with store=False, or open it for writing")
    parsed = parse_requested(measures)
    # the Python families (ndeval, umeasure) read per-intent judgments and check their own qrels
    run_ids = campaign_runs(
        con, campaign_id, runs,
        any_qrels=all(registry.driver(m.family) or m.definition.staging != "adhoc" for m in parsed),
    )
    check_judgment_set(con, campaign_id, judgment_set)
    inline = sorted({m["gain"] for m in parsed if m.has("gain") and is_inline_profile(m["gain"])}
                    - stored_profiles(con, campaign_id))
    kept = False
    try:
        compute_into(con, campaign_id, parsed, runs=run_ids, ordering=ordering, max_depth=max_depth,
                     judged_only=judged_only, topics=topics, judgment_set=judgment_set)
        used = orderings(parsed, ordering)
        settings = {"runs": run_ids, "max_depth": max_depth, "judged_only": judged_only, "topics": topics,
                    "orderings": used, "judgment_set": judgment_set}
        evaluation_id = finish_into(con, campaign_id, parsed, ordering_column(used), settings, store)
        kept = evaluation_id is not None
    finally:
        if inline and not kept:  # an inline profile stays only with the evaluation that used it
            con.execute("delete from gain_profiles where campaign_id = $c and list_contains($p, profile)",
                        {"c": campaign_id, "p": inline})
    return parsed, evaluation_id


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
         m["gain"] if any(key == "gain" for key, _ in m.values) else None)
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
            keys = {"id": evaluation_id, "campaign_id": campaign_id,
                    "judgment_set": settings.get("judgment_set", "official")}
            con.execute(
                "insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering, settings, "
                "judgment_set) values ($id, $campaign_id, $version, $ordering, $settings, $judgment_set)",
                {**keys, "version": __version__, "ordering": ordering, "settings": json.dumps(settings)},
            )
            con.execute(
                "insert into topic_scores (evaluation_id, campaign_id, run_id, topic_id, measure, value, "
                f"judgment_set) select $id, $campaign_id, run_id, topic_id, measure, value, $judgment_set "
                f"from {SCORES_TABLE}",
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
                "insert into evaluation_means (evaluation_id, campaign_id, run_id, measure, value, topics, "
                f"judgment_set) select $id, $campaign_id, run_id, measure, value, topics, $judgment_set "
                f"from {MEANS_TABLE}",
                keys,
            )
    finally:
        con.execute("drop table if exists new_measures")
    return evaluation_id
