"""Evaluating runs: stage the ranked lists once, run each metric family's SQL, store the scores.

The driver validates, binds and executes; every formula is in sql/metrics/ (one file per
family) and sql/evaluation/ (staging and topic aggregation).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from . import sqlfiles
from .db import first_row
from .errors import (
    DataIntegrityError,
    MeasureNameError,
    MeasureParamError,
    PyevalError,
    UnknownCampaignError,
)
from .measures import Measure, make, parse, registry

ORDERINGS = ("trec", "rank", "file")
TOPIC_POLICIES = ("qrels", "intersection")
NO_DEPTH_LIMIT = 2**62

#: Temporary relations an evaluation stages, in creation order.
_STAGES = (
    "evaluation_ranks",
    "evaluation_lists",
    "evaluation_pairs",
    "evaluation_topics",
    "evaluation_gains",
    "evaluation_gain_maxima",
)


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


def parse_measures(text: str) -> list[Measure]:
    """A canonical measure name, or a trec_eval spelling (which may stand for several)."""
    from .compat.trec_eval import TrecEvalError, measures_from_trec_name

    try:
        return [parse(text)]
    except (MeasureNameError, MeasureParamError) as first:
        try:
            return measures_from_trec_name(text)
        except TrecEvalError:
            raise first from None


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


def _requested_frame(family: str, family_measures: list[Measure]) -> pd.DataFrame:
    """One row per measure: canonical name, kind (declaration name) and every parameter any
    measure of the family declares (null where a measure has no such parameter)."""
    params = {}
    for definition in registry.definitions():
        if definition.family == family:
            for param in definition.params:
                params.setdefault(param.name, param.type)
    rows = []
    for measure in family_measures:
        row = dict.fromkeys(params)
        row.update(dict(measure.values))
        rows.append({"measure": str(measure), "kind": measure.name, **row})
    frame = pd.DataFrame(rows, columns=["measure", "kind", *params])
    return frame.astype({name: _DTYPES[kind] for name, kind in params.items()})


def _stage(con, campaign_id, runs, ordering, max_depth, judged_only, topic_policy, thresholds) -> None:
    parameters = {
        "evaluation_ranks": {
            "campaign_id": campaign_id, "ordering": ordering, "runs": runs,
            "max_depth": max_depth, "judged_only": judged_only,
        },
        "evaluation_lists": {
            "campaign_id": campaign_id, "runs": runs, "max_depth": max_depth,
            "judged_only": judged_only,
        },
        "evaluation_pairs": {"campaign_id": campaign_id, "runs": runs, "topic_policy": topic_policy},
        "evaluation_topics": {"campaign_id": campaign_id, "thresholds": thresholds},
        "evaluation_gains": {"campaign_id": campaign_id},
        "evaluation_gain_maxima": {"campaign_id": campaign_id},
    }
    files = {"evaluation_topics": "topic_judgments"}
    for stage in _STAGES:
        # stage names are the constants above, never user input
        con.execute(
            f"create or replace temp table {stage} as\n"
            + sqlfiles.read(f"evaluation/{files.get(stage, stage)}.sql"),
            parameters[stage],
        )


def _drop_stages(con) -> None:
    for stage in _STAGES:
        con.execute(f"drop table if exists {stage}")


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
) -> pd.DataFrame:
    """Per-topic values of ``measures`` (long form, with text measures' ``value_text``)."""
    _gain_profiles_iv(con, campaign_id, measures)
    thresholds = sorted({1} | {m["rel"] for m in measures if _has(m, "rel") and m["rel"] is not None})
    depth = NO_DEPTH_LIMIT if max_depth is None else max_depth
    _stage(con, campaign_id, list(runs), ordering, depth, judged_only, topics, thresholds)
    try:
        frames = []
        families = dict.fromkeys(m.family for m in measures)
        for family in families:
            family_measures = [m for m in measures if m.family == family]
            con.register("requested_measures", _requested_frame(family, family_measures))
            try:
                result = con.execute(sqlfiles.read(f"metrics/metric_{family}.sql")).df()
            finally:
                con.unregister("requested_measures")
            frames.append(result)
    finally:
        _drop_stages(con)
    frame = pd.concat(frames, ignore_index=True)
    order = {str(m): i for i, m in enumerate(measures)}
    frame = frame.sort_values(
        ["run_id", "topic_id", "measure"], key=lambda s: s.map(order) if s.name == "measure" else s
    )
    return frame.reset_index(drop=True)


BUILTIN_GAIN_PROFILES = ("linear", "exp")


def _gain_profiles_iv(con, campaign_id: str, measures: Sequence[Measure]) -> None:
    wanted = {m["gain"] for m in measures if _has(m, "gain")} - set(BUILTIN_GAIN_PROFILES)
    if not wanted:
        return
    stored = {row[0] for row in con.execute(
        "select distinct profile from gain_profiles where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}
    unknown = sorted(wanted - stored)
    if unknown:
        raise MeasureParamError(
            f"unknown gain profile {unknown[0]!r} (built in: {', '.join(BUILTIN_GAIN_PROFILES)}; "
            f"stored for campaign '{campaign_id}': {', '.join(sorted(stored)) or 'none'}); "
            "define one with `pyeval gains` and name it: nDCG(gain=NAME)"
        )


def _has(measure: Measure, name: str) -> bool:
    return any(key == name for key, _ in measure.values)


def means(con: duckdb.DuckDBPyConnection, per_topic: pd.DataFrame, measures: Sequence[Measure]) -> pd.DataFrame:
    """Combine per-topic values over topics with each measure's declared aggregate."""
    aggregates = pd.DataFrame(
        {"measure": [str(m) for m in measures], "aggregate": [m.definition.aggregate for m in measures]}
    )
    con.register("evaluation_scores", per_topic[["run_id", "topic_id", "measure", "value"]])
    con.register("requested_aggregates", aggregates)
    try:
        result = con.execute(sqlfiles.read("evaluation/means.sql")).df()
    finally:
        con.unregister("evaluation_scores")
        con.unregister("requested_aggregates")
    order = {str(m): i for i, m in enumerate(measures)}
    result = result.sort_values(["run_id", "measure"], key=lambda s: s.map(order) if s.name == "measure" else s)
    return result.reset_index(drop=True)


def _settings_iv(ordering: str, topics: str, max_depth: int | None) -> None:
    if ordering not in ORDERINGS:
        raise PyevalError(f"ordering must be one of {', '.join(ORDERINGS)}; got {ordering!r}")
    if topics not in TOPIC_POLICIES:
        raise PyevalError(f"topics must be one of {', '.join(TOPIC_POLICIES)}; got {topics!r}")
    if max_depth is not None and max_depth < 1:
        raise PyevalError(f"max_depth must be a positive integer; got {max_depth}")


def _runs_iv(con, campaign_id: str, runs: Sequence[str] | None) -> list[str]:
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    if row is None:
        raise UnknownCampaignError(f"campaign '{campaign_id}' does not exist")
    if row[0] == "diversity":
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has diversity qrels; ad hoc measures need ad hoc qrels"
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
        ``trec`` (score desc, docno desc; default), ``rank`` (rank column) or ``file``.
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
    _settings_iv(ordering, topics, max_depth)
    parsed = _measures_iv(measures)
    run_ids = _runs_iv(con, campaign_id, runs)
    frame = compute(
        con, campaign_id, parsed, runs=run_ids, ordering=ordering, max_depth=max_depth,
        judged_only=judged_only, topics=topics,
    )
    numeric_names = {str(m) for m in parsed if m.definition.storable}
    per_topic = frame[frame["measure"].isin(numeric_names)][["run_id", "topic_id", "measure", "value"]]
    per_topic = per_topic.reset_index(drop=True)
    texts = frame[~frame["measure"].isin(numeric_names)].reset_index(drop=True)
    numeric = [m for m in parsed if m.definition.storable]
    summary = means(con, per_topic, numeric) if numeric else pd.DataFrame(
        columns=["run_id", "measure", "value", "topics"]
    )
    evaluation_id = None
    if store and len(per_topic):
        settings = {
            "measures": [str(m) for m in numeric], "runs": run_ids, "max_depth": max_depth,
            "judged_only": judged_only, "topics": topics,
        }
        evaluation_id = _store(con, campaign_id, ordering, settings, per_topic)
    return Evaluation(per_topic, texts, summary, evaluation_id)


def _store(con, campaign_id: str, ordering: str, settings: dict, per_topic: pd.DataFrame) -> int:
    from . import __version__

    con.begin()
    try:
        evaluation_id = first_row(con, "select coalesce(max(evaluation_id), 0) + 1 from evaluations")[0]
        con.execute(
            "insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering, settings) "
            "values ($id, $campaign_id, $version, $ordering, $settings)",
            {"id": evaluation_id, "campaign_id": campaign_id, "version": __version__,
             "ordering": ordering, "settings": json.dumps(settings)},
        )
        con.register("new_scores", per_topic)
        con.execute(
            "insert into topic_scores (evaluation_id, campaign_id, run_id, topic_id, measure, value) "
            "select $id, $campaign_id, run_id, topic_id, measure, value from new_scores",
            {"id": evaluation_id, "campaign_id": campaign_id},
        )
        con.commit()
    except BaseException:
        con.rollback()
        raise
    finally:
        con.unregister("new_scores")
    return evaluation_id
