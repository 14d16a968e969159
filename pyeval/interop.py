"""ir_measures' Python API over pyeval's SQL layer: ``calc_aggregate``, ``iter_calc``, ``calc``
and ``evaluator``, with ir_measures' signatures and result types.

Measures may be ir_measures ``Measure`` objects (read through their names, which pyeval parses
with ir_measures' meaning: docs/measures.md), pyeval measures or measure strings. Qrels and runs
may be iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples (or any objects with
``query_id``, ``doc_id`` and ``relevance``/``score``; ``iteration`` names a diversity intent:
ir_datasets' ``qrels_iter()`` and ``scoreddocs_iter()`` too), ranx ``Qrels`` and ``Run``
(read through their ``to_dict()``), dicts of dicts (``{query_id: {doc_id: relevance or score}}``), pandas DataFrames with those
columns, Arrow tables, or file paths (Parquet files and folders too; Arrow tables and Parquet
through the loaders' columnar route, pyeval/loaders/columnar.py). This module holds those
argument shapes and ir_measures' result types; the evaluation is the resident engine's
(:class:`pyeval.engines.resident.Engine`: the qrels loaded once into an in-memory warehouse,
each measure set prepared once from its plan, the plan's compiled statement run once per call).
Shapes reach DuckDB as they are (numpy object arrays from mappings and namedtuples, Arrow
columns from DataFrames: no per-row Python loop, no pandas unless a DataFrame is given; files
and Arrow tables through the run loader). :func:`evaluator` keeps one
engine; the module-level functions reuse one engine per thread and qrels content
(:func:`engine_for`). :func:`calc_aggregate_many` and :func:`calc_many` (and the evaluator's
methods of those names) take a mapping of run name -> run and evaluate all the runs in one
statement (:meth:`~pyeval.engines.resident.Engine.evaluate_many`), paying its fixed cost
once: each run's values are those of one call for it alone.

Every topic of the qrels is scored (a topic the run lacks scores the measure's empty value, as
ir_measures' evaluators fill 0); topics only the run has are ignored.
"""
from __future__ import annotations

import functools
import hashlib
import itertools
import math
import operator
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from .engines.resident import CAMPAIGN, RUN, Engine, QrelsRows, Result, RunInput  # noqa: F401
from .errors import InputFormatError, InputWarning, PyevalError
from .loaders import columnar
from .loaders.columnar import QRELS_COLUMNS, RUN_COLUMNS, column, is_arrow
from .loaders.source import is_frame, is_ranx, pick_column
from .measures import Measure, parse, parse_measures

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa


class Metric(NamedTuple):
    """One per-topic value (ir_measures.Metric): ``measure`` is the object the caller gave."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """ir_measures.CalcResults: the aggregates by measure and the per-topic metrics."""

    aggregated: dict[Any, float]
    per_query: list[Metric]


def _plain(source: Any) -> Any:
    """A ranx ``Qrels`` or ``Run`` as the dict of dicts its ``to_dict()`` gives (its own mapping
    is a numba typed dict, which cannot be read as one); anything else as it is."""
    return source.to_dict() if is_ranx(source) else source


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


#: A mapping's values, through its own method (a dict's in C; ``Mapping.values`` would iterate
#: a dict in Python).
_VALUES = operator.methodcaller("values")


def _texts(values: Iterable[Any]) -> np.ndarray:
    """Identifiers as an object array of their text (numbers as their text, as a file writes
    them), a missing value (None) kept as None."""
    import numpy as np

    items = values if isinstance(values, list) else list(values)
    array = np.empty(len(items), dtype=object)
    array[:] = items  # one element per item, even for tuple-like identifiers
    missing = np.equal(array, None)
    text = np.fromiter(map(str, array), dtype=object, count=len(array))
    text[missing] = None
    return text


def _records(source: Iterable[Any], value: str) -> dict[str, np.ndarray] | None:
    """The rows of an iterable of namedtuples (or objects with ``query_id``, ``doc_id`` and
    ``value``; ``iteration`` optional) as object arrays by field, or None when it has no rows."""
    records = source if isinstance(source, list) else list(source)
    if not records:
        return None
    first = records[0]
    fields = [f for f in ("query_id", "doc_id", value, "iteration") if hasattr(first, f)]
    if not {"query_id", "doc_id", value} <= set(fields):
        raise PyevalError(f"cannot read {type(first).__name__} as a {'qrel' if value == 'relevance' else 'run entry'}: "
                          f"it needs query_id, doc_id and {value}")
    return {field: _texts(map(operator.attrgetter(field), records)) if field != value
            else list(map(operator.attrgetter(field), records)) for field in fields}

def _adhoc_judgments(columns: Mapping[str, Any]) -> Any:
    """Diversity qrels (``columns``: query_id, doc_id, relevance) as ir_measures gives them to its
    ad hoc measures (pytrec_eval's dict of dicts, ``QrelsConverter.as_dict_of_dict``): one level
    per (topic, document), the last row's; a DataFrame, made when an ad hoc measure asks."""
    import pandas as pd

    frame = pd.DataFrame({"query_id": _texts(columns["query_id"]), "doc_id": _texts(columns["doc_id"]),
                          "relevance": list(columns["relevance"])})
    return frame.drop_duplicates(["query_id", "doc_id"], keep="last")


def _frame_adhoc_columns(frame: Any) -> dict[str, Any] | None:
    """A qrels DataFrame's columns for :func:`_adhoc_judgments` when its intent column varies
    (diversity qrels), else None."""
    topic, doc, level, intent = (pick_column(frame, c.names, c.what, c.required) for c in QRELS_COLUMNS)
    if intent is None or intent.nunique() <= 1:
        return None
    return {"query_id": topic, "doc_id": doc, "relevance": level}


def _arrow_adhoc_columns(table: pa.Table) -> dict[str, Any] | None:
    """An Arrow qrels table's columns for :func:`_adhoc_judgments` when its intent column varies
    (diversity qrels), else None; the loader checks its columns (columnar.chosen_columns)."""
    import pyarrow.compute as pc

    names = {c.role: next((n for n in c.names if n in table.column_names), None) for c in QRELS_COLUMNS}
    if names["iteration"] is None or None in (names["topic_id"], names["doc_id"], names["level"]):
        return None
    if pc.count_distinct(table.column(names["iteration"])).as_py() <= 1:
        return None
    return {"query_id": table.column(names["topic_id"]).to_numpy(zero_copy_only=False),
            "doc_id": table.column(names["doc_id"]).to_numpy(zero_copy_only=False),
            "relevance": table.column(names["level"]).to_numpy(zero_copy_only=False)}

def _qrels_input(qrels: Any) -> tuple[Any, Callable[[], Any] | None]:
    """Qrels as the resident engine takes them (:class:`pyeval.engines.resident.Engine`): a
    path (a Parquet file or folder too), a DataFrame or an Arrow table as given; a mapping or
    an iterable of Qrel namedtuples as :class:`~pyeval.engines.resident.QrelsRows` (the rows
    of a TREC qrels file, ``topic intent doc level``, intent ``0`` unless the ``iteration``
    field varies, as object arrays: no pandas, no pyarrow). With them, when they are diversity
    qrels given in memory, how to make their ad hoc form (:func:`_adhoc_judgments`), else None."""
    if isinstance(qrels, (str, os.PathLike)):
        return qrels, None
    if is_frame(qrels) or is_arrow(qrels):  # the loader reads them (an Arrow table as Parquet is read)
        columns = _frame_adhoc_columns(qrels) if is_frame(qrels) else _arrow_adhoc_columns(qrels)
        return qrels, None if columns is None else functools.partial(_adhoc_judgments, columns)
    import numpy as np

    if isinstance(qrels, Mapping):
        names = list(qrels.keys())
        lists = list(qrels.values())
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        columns = {"query_id": np.repeat(_texts(names), counts),
                   "doc_id": _texts(itertools.chain.from_iterable(lists)),
                   "relevance": list(itertools.chain.from_iterable(map(_VALUES, lists)))}
    else:
        columns = _records(qrels, "relevance") or {"query_id": [], "doc_id": [], "relevance": []}
    rows = len(columns["query_id"])
    intents = columns.get("iteration")
    adhoc = None
    if intents is None or len(set(intents)) <= 1:  # ir_measures' default iteration '0': ad hoc
        intents = np.full(rows, "0", dtype=object)
    else:
        adhoc = columns
    rows = QrelsRows({"line_number": np.arange(1, rows + 1, dtype=np.int64), "topic_id": columns["query_id"],
                      "intent_id": intents, "doc_id": columns["doc_id"], "level": _texts(columns["relevance"])})
    return rows, None if adhoc is None else functools.partial(_adhoc_judgments, adhoc)


def _text_array(values: Any) -> pa.Array:
    """A DataFrame's identifiers (a pandas Series) as an Arrow string array, without a copy when
    they are Arrow strings already: numbers as their text, other objects as ``str`` gives it,
    as the loader writes them."""
    import pyarrow as pa

    try:
        array = pa.array(values, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):  # mixed objects
        array = None
    if array is not None and (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return array.cast(pa.string())
    if array is not None and pa.types.is_integer(array.type):
        return array.cast(pa.string())
    return pa.array([None if v is None else str(v) for v in values], type=pa.string())

def run_table(run: Any, label: str = "<run>") -> RunInput | None:
    """A run as :class:`RunInput` (no per-row Python loop), or None for a path or an Arrow table
    (the run loader reads them: a Parquet file or folder, an Arrow table by its columns,
    pyeval/loaders/columnar.py). ``line_number`` is the row's position (1-based), which errors name. Without a
    rank column (a mapping, namedtuples, a DataFrame without ``rank``) ``rank_given`` is null
    (a masked array): sql/loaders/run_insert.sql ranks such a run by its scores, in trec_eval's
    order, for every ordering, so that the order the rows are given in never changes a value.

    Raises
    ------
    PyevalError
        Rows without ``query_id``, ``doc_id`` and ``score``.
    InputFormatError
        A missing identifier or score, or a score that is not a finite number (``label:ROW``;
        :meth:`Engine.evaluate_many` checks that no document is given twice for a topic).
    """
    if isinstance(run, (str, os.PathLike)) or is_arrow(run):
        return None
    import numpy as np

    rank = None
    if is_frame(run):
        if len(run) == 0:
            return _empty_run()
        topics, docs = (_text_array(pick_column(run, c.names, c.what)) for c in RUN_COLUMNS[:2])
        try:
            scores = np.asarray(pick_column(run, ("score",), "score").to_numpy(), dtype=np.float64)
            given = pick_column(run, column(RUN_COLUMNS, "rank_given").names, "rank", required=False)
            if given is not None:
                rank = np.asarray(given.to_numpy(), dtype=np.int64)
        except (TypeError, ValueError) as exc:
            raise InputFormatError(label, None, f"a score or rank is not a number ({exc})") from None
        checked = False
        missing = [np.asarray(topics.is_null()), np.asarray(docs.is_null())]
    else:
        if isinstance(run, Mapping):
            names = list(run.keys())
            lists = list(run.values())
            counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
            topic_names = _texts(names)
            topics = np.repeat(topic_names, counts)
            docs = _texts(itertools.chain.from_iterable(lists))
            values = itertools.chain.from_iterable(map(_VALUES, lists))
            checked = len(set(topic_names)) == len(names)  # no two keys with one text
        else:
            columns = _records(run, "score")
            if columns is None:
                return _empty_run()
            topics, docs, values = columns["query_id"], columns["doc_id"], columns["score"]
            checked = False
        if len(topics) == 0:
            return _empty_run()
        try:
            scores = np.fromiter(values, dtype=np.float64, count=len(topics))
        except (TypeError, ValueError) as exc:
            raise InputFormatError(label, None, f"a score is not a number ({exc})") from None
        missing = [np.equal(topics, None), np.equal(docs, None)]
    for name, absent in zip(("query_id", "doc_id"), missing):
        if absent.any():
            raise InputFormatError(label, int(np.argmax(absent)) + 1, f"{name} has no value")
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad)) + 1
        raise InputFormatError(label, row, f"the score {float(scores[row - 1])!r} is not a finite number")
    positions = np.arange(1, len(scores) + 1, dtype=np.int64)
    relation = {"topic_id": topics, "doc_id": docs, "score": scores, "line_number": positions,
                "rank_given": np.ma.masked_array(positions, mask=True) if rank is None else rank}
    if is_frame(run):
        import pyarrow as pa

        relation = pa.table(relation)
    return RunInput(relation, checked)


def _empty_run() -> RunInput:
    """A run that retrieved nothing, as :func:`run_table`'s columns (ir_measures and trec_eval
    score it 0 on every judged topic; docs/loading.md)."""
    import numpy as np

    return RunInput({"topic_id": np.empty(0, dtype=object), "doc_id": np.empty(0, dtype=object),
                     "score": np.empty(0, dtype=np.float64), "line_number": np.empty(0, dtype=np.int64),
                     "rank_given": np.empty(0, dtype=np.int64)}, True)

def _run_names(runs: Mapping[Any, Any]) -> list[str]:
    """The run names of ``runs``' keys (their text), which must differ."""
    names = [str(key) for key in runs]
    if len(set(names)) < len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise PyevalError(f"two runs are named {twice!r}: give each run its own name")
    return names

def _runs_input(runs: Mapping[str, Any], labels: Mapping[str, str]) -> dict[str, RunInput | str | os.PathLike]:
    """Each run (name -> run, any form) as the resident engine takes it: in memory as
    :class:`~pyeval.engines.resident.RunInput` (:func:`run_table`), a path as it is. A bad run
    raises naming it (``labels``)."""
    shaped: dict[str, Any] = {}
    for name, run in runs.items():
        try:
            table = run_table(run, labels[name])
        except PyevalError as exc:
            if isinstance(exc, InputFormatError) or len(runs) == 1:
                raise  # named by its label already, or the only run
            raise PyevalError(f"{labels[name]}: {exc}") from None
        shaped[name] = run if table is None else table
    return shaped


def resident_engine(qrels: Any) -> Engine:
    """A resident engine holding ``qrels`` (any form the functions take)."""
    return Engine(*_qrels_input(qrels))


#: Types whose ``repr`` is their value: a mapping of them is keyed by its ``repr``.
_VALUE_TYPES = (str, int, float, bool)


def qrels_key(qrels: Any) -> str | None:
    """A key of the qrels' content, for :func:`engine_for`: a mapping's ``repr`` (its
    identifiers and levels being strings and numbers), a DataFrame's or an Arrow table's Arrow
    buffers (sha256), a file's (or a Parquet folder's files') path, size and time; None when
    they cannot be keyed (then a new engine each call)."""
    if isinstance(qrels, (str, os.PathLike)):
        try:
            paths = [qrels, *(columnar.dataset_files(qrels) or [])] if os.path.isdir(qrels) else [qrels]
            stats = [(path, os.stat(path)) for path in paths]
        except OSError:
            return None
        return "file:" + ":".join(f"{os.path.realpath(path)}:{stat.st_size}:{stat.st_mtime_ns}" for path, stat in stats)
    if isinstance(qrels, Mapping):
        import numpy as np

        lists = list(qrels.values())
        if not all(isinstance(docs, Mapping) for docs in lists):
            return None
        kinds = set(map(type, qrels.keys())).union(
            *(set(map(type, docs.keys())) | set(map(type, docs.values())) for docs in lists))
        if not all(issubclass(kind, (*_VALUE_TYPES, np.number)) for kind in kinds):
            return None
        return "mapping:" + hashlib.sha256(repr(qrels).encode("utf-8")).hexdigest()
    if is_arrow(qrels):
        return "arrow:" + columnar.arrow_sha256(qrels)
    if not is_frame(qrels):
        return None
    import pyarrow as pa

    try:
        table = pa.Table.from_pandas(qrels, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    return columnar.arrow_sha256(table)


#: Engines kept per thread (the qrels most recently used).
ENGINES_PER_THREAD = 4
_ENGINES = threading.local()


def engine_for(qrels: Any) -> tuple[Engine, bool]:
    """This thread's engine for ``qrels`` (made on first use, the least recently used dropped
    beyond :data:`ENGINES_PER_THREAD`), and whether it is kept (a throw-away otherwise)."""
    key = qrels_key(qrels)
    if key is None:
        return resident_engine(qrels), False
    cache = getattr(_ENGINES, "cache", None)
    if cache is None:
        cache = _ENGINES.cache = OrderedDict()
    engine = cache.get(key)
    if engine is None:
        engine = cache[key] = resident_engine(qrels)
        while len(cache) > ENGINES_PER_THREAD:
            cache.popitem(last=False)[1].close()
    cache.move_to_end(key)
    return engine, True


def _evaluate(measures, qrels, run, ordering: str | None, engine: Engine | None = None
              ) -> tuple[list[tuple[Any, Measure]], list[tuple[str, str, float]], dict[str, float]]:
    pairs, results = _evaluate_many(measures, qrels, {RUN: run}, ordering, engine, single=True)
    return (pairs, *results[RUN])


def _evaluate_many(measures, qrels, runs: Mapping[Any, Any], ordering: str | None, engine: Engine | None = None,
                   *, single: bool = False) -> tuple[list[tuple[Any, Measure]], dict[Any, Result]]:
    """The measures asked for and each run's values (``single``: one run, named ``<run>`` in
    errors, as ir_measures' functions take it)."""
    pairs = _measures(measures)
    if not isinstance(runs, Mapping):
        raise PyevalError(f"runs must be a mapping of run name -> run; got {type(runs).__name__}")
    qrels = _plain(qrels)
    if engine is None and isinstance(qrels, Iterator):  # a generator of Qrels: read once, counted
        qrels = list(qrels)
    if engine is None and _has_no_rows(qrels):  # no judged topic: no value per topic
        warnings.warn("the qrels have no rows, so no topic is judged: no per-topic value, and each mean is NaN "
                      "(a count 0), as ir_measures gives them", InputWarning, stacklevel=4 if single else 3)
        return pairs, {key: ([], _no_topics(pairs)) for key in runs}
    kept = engine is not None
    if engine is None:
        engine, kept = engine_for(qrels)
    try:
        unique = list(dict.fromkeys(m for _, m in pairs))
        names = _run_names(runs)
        labels = {RUN: "<run>"} if single else {name: f"<run {name}>" for name in names}
        given = dict(zip(names, map(_plain, runs.values())))
        by_name = engine.evaluate_many(unique, _runs_input(given, labels), ordering, labels)
        results = {key: by_name[name] for key, name in zip(runs, names)}
    finally:
        if not kept:
            engine.close()
    for _, means in results.values():  # judged topics: every measure has a value; none is never silent
        missing = [str(m) for m in unique if str(m) not in means]
        if missing:
            raise PyevalError(f"{', '.join(missing)}: no value on these qrels (no topic has judgments this "
                              "measure reads)")
    return pairs, results


def _has_no_rows(source: Any) -> bool:
    """Whether qrels or a run given as a DataFrame, a mapping or a sequence has no rows (a path
    is read by the loader, which refuses an empty qrels file)."""
    if isinstance(source, (str, os.PathLike)):
        return False
    if is_arrow(source):
        return source.num_rows == 0
    if is_frame(source) or isinstance(source, (list, tuple)):
        return len(source) == 0
    if isinstance(source, Mapping):
        return all(len(docs) == 0 for docs in source.values())
    return False


def _no_topics(pairs: list[tuple[Any, Measure]]) -> dict[str, float]:
    """Aggregates with empty qrels (no judged topic, so no value per topic, as ir_measures and
    trec_eval have it): a sum over no topics is 0, a mean NaN."""
    return {str(m): 0.0 if m.definition.aggregate == "sum" else math.nan for _, m in pairs}


def _metrics(pairs, per_topic: list[tuple[str, str, float]]) -> Iterator[Metric]:
    by_name = {str(m): given for given, m in pairs}
    for topic, measure, value in per_topic:
        yield Metric(topic, by_name[measure], float(value))


def _aggregates(pairs, means: dict[str, float]) -> dict[Any, float]:
    return {given: float(means[str(m)]) for given, m in pairs}


def iter_calc(measures, qrels, run, *, ordering: str | None = None) -> Iterator[Metric]:
    """Per-topic values (ir_measures.iter_calc): one :class:`Metric` per measure and topic."""
    pairs, per_topic, _ = _evaluate(measures, qrels, run, ordering)
    return _metrics(pairs, per_topic)


def calc_aggregate(measures, qrels, run, *, ordering: str | None = None) -> dict[Any, float]:
    """Each measure's value over the topics (ir_measures.calc_aggregate: its mean, or its sum
    for counts), keyed by the objects given."""
    pairs, _, means = _evaluate(measures, qrels, run, ordering)
    return _aggregates(pairs, means)


def calc(measures, qrels, run, *, ordering: str | None = None) -> CalcResults:
    """Aggregates and per-topic values of one evaluation (ir_measures.calc)."""
    pairs, per_topic, means = _evaluate(measures, qrels, run, ordering)
    return CalcResults(_aggregates(pairs, means), list(_metrics(pairs, per_topic)))


def calc_aggregate_many(measures, qrels, runs: Mapping[Any, Any], *, ordering: str | None = None
                        ) -> dict[Any, dict[Any, float]]:
    """:func:`calc_aggregate` of every run of ``runs`` (run name -> run, each in any form
    :func:`calc_aggregate` takes), evaluated together in one statement (:meth:`Engine.evaluate_many`):
    the same values, bit for bit, as one call per run, at a fraction of the cost per run.
    Errors name the run (``<run NAME>:ROW: ...``)."""
    pairs, results = _evaluate_many(measures, qrels, runs, ordering)
    return {key: _aggregates(pairs, means) for key, (_, means) in results.items()}


def calc_many(measures, qrels, runs: Mapping[Any, Any], *, ordering: str | None = None) -> dict[Any, CalcResults]:
    """:func:`calc` of every run of ``runs`` (run name -> run), evaluated together as
    :func:`calc_aggregate_many` does."""
    pairs, results = _evaluate_many(measures, qrels, runs, ordering)
    return {key: CalcResults(_aggregates(pairs, means), list(_metrics(pairs, per_topic)))
            for key, (per_topic, means) in results.items()}


class Evaluator:
    """ir_measures.evaluator(measures, qrels): the measures and qrels, evaluated per run. The
    qrels are loaded once into a resident :class:`Engine`."""

    def __init__(self, measures, qrels, *, ordering: str | None = None):
        self.measures = list(measures) if isinstance(measures, Iterable) and not isinstance(measures, str) else [measures]
        self.ordering = ordering
        qrels = _plain(qrels)
        if isinstance(qrels, Iterator):
            qrels = list(qrels)
        # qrels without rows judge no topic: each call gives what the functions give (no engine)
        self._empty_qrels = qrels if _has_no_rows(qrels) else None
        self.engine = None if self._empty_qrels is not None else resident_engine(qrels)

    def iter_calc(self, run) -> Iterator[Metric]:
        pairs, per_topic, _ = _evaluate(self.measures, self._empty_qrels, run, self.ordering, self.engine)
        return _metrics(pairs, per_topic)

    def calc_aggregate(self, run) -> dict[Any, float]:
        pairs, _, means = _evaluate(self.measures, self._empty_qrels, run, self.ordering, self.engine)
        return _aggregates(pairs, means)

    def calc(self, run) -> CalcResults:
        pairs, per_topic, means = _evaluate(self.measures, self._empty_qrels, run, self.ordering, self.engine)
        return CalcResults(_aggregates(pairs, means), list(_metrics(pairs, per_topic)))

    def calc_aggregate_many(self, runs: Mapping[Any, Any]) -> dict[Any, dict[Any, float]]:
        """:meth:`calc_aggregate` of every run of ``runs`` (run name -> run), in one statement
        (:func:`calc_aggregate_many`)."""
        pairs, results = _evaluate_many(self.measures, self._empty_qrels, runs, self.ordering, self.engine)
        return {key: _aggregates(pairs, means) for key, (_, means) in results.items()}

    def calc_many(self, runs: Mapping[Any, Any]) -> dict[Any, CalcResults]:
        """:meth:`calc` of every run of ``runs`` (run name -> run), in one statement."""
        pairs, results = _evaluate_many(self.measures, self._empty_qrels, runs, self.ordering, self.engine)
        return {key: CalcResults(_aggregates(pairs, means), list(_metrics(pairs, per_topic)))
                for key, (per_topic, means) in results.items()}

    def close(self) -> None:
        """Close the engine's in-memory warehouse."""
        if self.engine is not None:
            self.engine.close()


def evaluator(measures, qrels, *, ordering: str | None = None) -> Evaluator:
    """An :class:`Evaluator` (ir_measures.evaluator)."""
    return Evaluator(measures, qrels, ordering=ordering)
