"""ir_measures' Python API over pyeval's SQL layer: ``calc_aggregate``, ``iter_calc``, ``calc``
and ``evaluator``, with ir_measures' signatures and result types.

Measures may be ir_measures ``Measure`` objects (read through their names, which pyeval parses
with ir_measures' meaning: docs/measures.md), pyeval measures or measure strings. Qrels and runs
may be iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples (or any objects with
``query_id``, ``doc_id`` and ``relevance``/``score``; ``iteration`` names a diversity intent),
dicts of dicts (``{query_id: {doc_id: relevance or score}}``), pandas DataFrames with those
columns, or file paths. Each call loads them into a throw-away in-memory warehouse
(:func:`pyeval.warehouse.scratch`) and computes with :func:`pyeval.evaluation.evaluate`, so
the values are the SQL families' (follows ir_measures 0.4.3, terrierteam/ir_measures).

Every topic of the qrels is scored (a topic the run lacks scores the measure's empty value, as
ir_measures' evaluators fill 0); topics only the run has are ignored.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from . import warehouse
from .errors import PyevalError
from .evaluation import evaluate
from .loaders import load_qrels, load_run
from .measures import Measure, parse, parse_measures

if TYPE_CHECKING:
    import pandas as pd

#: The relations an evaluation reads: the loaded tables, the ad hoc gain and ranking views, and
#: the intent views of diversity measures.
RELATIONS = (*warehouse.LOADED_TABLES, *warehouse.ADHOC_EVALUATION, "intent_weights", "intent_gain_values", "global_gains",
             "din_rank_gains", "intent_levels", "profile_gains", "document_lengths")
CAMPAIGN = "ir_measures"
RUN = "run"


class Metric(NamedTuple):
    """One per-topic value (ir_measures.Metric): ``measure`` is the object the caller gave."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """ir_measures.CalcResults: the aggregates by measure and the per-topic metrics."""

    aggregated: dict[Any, float]
    per_query: list[Metric]


def _measures(measures: Iterable[Any] | Any) -> list[tuple[Any, Measure]]:
    """(the caller's object, pyeval measure) for every measure asked for."""
    if isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable):
        measures = [measures]
    pairs = []
    for given in measures:
        if isinstance(given, Measure):
            pairs.append((given, given))
        elif isinstance(given, str):
            found = parse_measures(given)
            pairs += [(given if len(found) == 1 else m, m) for m in found]
        else:  # an ir_measures Measure: its name is ir_measures syntax
            pairs.append((given, parse(str(given))))
    return pairs


def _frame(source: Any, value: str) -> Any:
    """A path, a DataFrame, or the rows of ``source`` as a DataFrame (``value``: relevance or
    score)."""
    if isinstance(source, (str, os.PathLike)):
        return source
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return source
    if isinstance(source, Mapping):
        rows = [(str(topic), str(doc), number) for topic, docs in source.items() for doc, number in docs.items()]
        return pd.DataFrame(rows, columns=["query_id", "doc_id", value])
    records = list(source)
    if not records:
        return pd.DataFrame(columns=["query_id", "doc_id", value])
    first = records[0]
    fields = [f for f in ("query_id", "doc_id", value, "iteration") if hasattr(first, f)]
    if not {"query_id", "doc_id", value} <= set(fields):
        raise PyevalError(f"cannot read {type(first).__name__} as a {'qrel' if value == 'relevance' else 'run entry'}: "
                          f"it needs query_id, doc_id and {value}")
    frame = pd.DataFrame([tuple(getattr(r, f) for f in fields) for r in records], columns=fields)
    if "iteration" in frame and frame["iteration"].nunique() <= 1:  # ir_measures' default '0'
        frame = frame.drop(columns="iteration")
    return frame


def _evaluate(measures, qrels, run, ordering: str | None) -> tuple[list[tuple[Any, Measure]], pd.DataFrame, pd.DataFrame]:
    pairs = _measures(measures)
    judgments = _frame(qrels, "relevance")
    if getattr(judgments, "empty", False):
        return pairs, *_no_topics(pairs)
    con = warehouse.scratch(RELATIONS)
    try:
        load_qrels(con, CAMPAIGN, judgments)
        load_run(con, CAMPAIGN, _frame(run, "score"), name=RUN)  # an empty run retrieved nothing
        result = evaluate(con, CAMPAIGN, [m for _, m in pairs], ordering=ordering, store=False)
    finally:
        con.close()
    return pairs, result.per_topic, result.means


def _no_topics(pairs: list[tuple[Any, Measure]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-topic values and means with empty qrels (no judged topic, so no value per topic, as
    ir_measures and trec_eval have it): a sum over no topics is 0, a mean NaN."""
    import pandas as pd

    per_topic = pd.DataFrame(columns=["run_id", "topic_id", "measure", "value"])
    means = pd.DataFrame([(RUN, str(m), 0.0 if m.definition.aggregate == "sum" else math.nan, 0) for _, m in pairs],
                         columns=["run_id", "measure", "value", "topics"])
    return per_topic, means


def iter_calc(measures, qrels, run, *, ordering: str | None = None) -> Iterator[Metric]:
    """Per-topic values (ir_measures.iter_calc): one :class:`Metric` per measure and topic."""
    pairs, per_topic, _ = _evaluate(measures, qrels, run, ordering)
    by_name = {str(m): given for given, m in pairs}
    for row in per_topic.itertuples(index=False):
        yield Metric(row.topic_id, by_name[row.measure], float(row.value))


def calc_aggregate(measures, qrels, run, *, ordering: str | None = None) -> dict[Any, float]:
    """Each measure's value over the topics (ir_measures.calc_aggregate: its mean, or its sum
    for counts), keyed by the objects given."""
    pairs, _, means = _evaluate(measures, qrels, run, ordering)
    values = dict(zip(means["measure"], means["value"]))
    return {given: float(values[str(m)]) for given, m in pairs}


def calc(measures, qrels, run, *, ordering: str | None = None) -> CalcResults:
    """Aggregates and per-topic values of one evaluation (ir_measures.calc)."""
    pairs, per_topic, means = _evaluate(measures, qrels, run, ordering)
    by_name = {str(m): given for given, m in pairs}
    values = dict(zip(means["measure"], means["value"]))
    metrics = [Metric(r.topic_id, by_name[r.measure], float(r.value)) for r in per_topic.itertuples(index=False)]
    return CalcResults({given: float(values[str(m)]) for given, m in pairs}, metrics)


class Evaluator:
    """ir_measures.evaluator(measures, qrels): the measures and qrels, evaluated per run."""

    def __init__(self, measures, qrels, *, ordering: str | None = None):
        self.measures = list(measures) if isinstance(measures, Iterable) and not isinstance(measures, str) else [measures]
        self.qrels = qrels if isinstance(qrels, (str, os.PathLike, Mapping)) or hasattr(qrels, "columns") else list(qrels)
        self.ordering = ordering

    def iter_calc(self, run) -> Iterator[Metric]:
        return iter_calc(self.measures, self.qrels, run, ordering=self.ordering)

    def calc_aggregate(self, run) -> dict[Any, float]:
        return calc_aggregate(self.measures, self.qrels, run, ordering=self.ordering)

    def calc(self, run) -> CalcResults:
        return calc(self.measures, self.qrels, run, ordering=self.ordering)


def evaluator(measures, qrels, *, ordering: str | None = None) -> Evaluator:
    """An :class:`Evaluator` (ir_measures.evaluator)."""
    return Evaluator(measures, qrels, ordering=ordering)
