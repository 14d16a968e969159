"""ir_measures' Python API over pyeval's SQL layer: ``calc_aggregate``, ``iter_calc``, ``calc``
and ``evaluator``, with ir_measures' signatures and result types.

Measures may be ir_measures ``Measure`` objects (read through their names, which pyeval parses
with ir_measures' meaning: docs/measures.md), pyeval measures or measure strings. Qrels and runs
may be iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples (or any objects with
``query_id``, ``doc_id`` and ``relevance``/``score``; ``iteration`` names a diversity intent),
dicts of dicts (``{query_id: {doc_id: relevance or score}}``), pandas DataFrames with those
columns, or file paths. The qrels are loaded once into a resident in-memory warehouse
(:class:`Engine`: :func:`pyeval.warehouse.scratch`, its views created once); each call loads
only the run, as Arrow columns (no per-row Python loop; files through the run loader), and
computes with :func:`pyeval.evaluation.evaluate`, so the values are the SQL families' (follows
ir_measures 0.4.3, terrierteam/ir_measures). :func:`evaluator` keeps one engine; the
module-level functions reuse one engine per thread and qrels content (:func:`engine_for`).

Every topic of the qrels is scored (a topic the run lacks scores the measure's empty value, as
ir_measures' evaluators fill 0); topics only the run has are ignored.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import operator
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from . import sqlfiles, warehouse
from .db import create_rows, transaction
from .errors import InputFormatError, PyevalError
from .evaluation import evaluate
from .loaders import load_qrels, load_run
from .loaders.source import is_frame, pick_column
from .measures import Measure, parse, parse_measures

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

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


def _frame_rows(source: Any) -> Any:
    """Qrels as the loader takes them: a path or a DataFrame as given, other forms as a
    DataFrame (:func:`_frame`)."""
    return _frame(source, "relevance")


def _text_array(values: Any) -> pa.Array:
    """Identifiers (a list or a pandas Series) as an Arrow string array: numbers as their
    text, other objects as ``str`` gives it, as the loader writes them."""
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


def run_table(run: Any) -> pa.Table | None:
    """A run as Arrow columns ``topic_id, doc_id, score, rank_given, line_number`` (no per-row
    Python loop), or None for a path (the run loader reads files). Ranks follow the order given
    within each topic unless a DataFrame has a rank column; ``line_number`` is the row's
    position (1-based), what a file's line number is to the ``file`` ordering.

    Raises
    ------
    PyevalError
        No rows, or rows without ``query_id``, ``doc_id`` and ``score``.
    InputFormatError
        A missing identifier or score, a score that is not a finite number, or a document
        given twice for a topic (``<run>:ROW``, the row of its second occurrence).
    """
    if isinstance(run, (str, os.PathLike)):
        return None
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rank = None
    if is_frame(run):
        if len(run) == 0:
            return _empty_run()
        topics = _text_array(pick_column(run, ("query_id", "qid", "topic_id"), "topic"))
        docs = _text_array(pick_column(run, ("doc_id", "docno"), "document"))
        try:
            scores = np.asarray(pick_column(run, ("score",), "score").to_numpy(), dtype=np.float64)
            given = pick_column(run, ("rank", "rank_given"), "rank", required=False)
            if given is not None:
                rank = np.asarray(given.to_numpy(), dtype=np.int64)
        except (TypeError, ValueError) as exc:
            raise InputFormatError("<run>", None, f"a score or rank is not a number ({exc})") from None
        checked = False
    elif isinstance(run, Mapping):
        names = list(run.keys())
        lists = list(run.values())
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        if counts.sum() == 0:
            return _empty_run()
        topics = pc.take(_text_array(names), pa.array(np.repeat(np.arange(len(names)), counts)))
        docs = _text_array(list(itertools.chain.from_iterable(map(Mapping.keys, lists))))
        scores = np.fromiter(itertools.chain.from_iterable(map(Mapping.values, lists)), dtype=np.float64,
                             count=int(counts.sum()))
        checked = pc.count_distinct(_text_array(names)).as_py() == len(names)  # no two keys with one text
    else:
        records = list(run)
        if not records:
            return _empty_run()
        first = records[0]
        if not all(hasattr(first, f) for f in ("query_id", "doc_id", "score")):
            raise PyevalError(f"cannot read {type(first).__name__} as a run entry: it needs query_id, doc_id and score")
        topics = _text_array(list(map(operator.attrgetter("query_id"), records)))
        docs = _text_array(list(map(operator.attrgetter("doc_id"), records)))
        scores = np.fromiter(map(operator.attrgetter("score"), records), dtype=np.float64, count=len(records))
        checked = False
    for name, column in (("query_id", topics), ("doc_id", docs)):
        if column.null_count:
            row = int(np.argmax(np.asarray(column.is_null()))) + 1
            raise InputFormatError("<run>", row, f"{name} has no value")
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.argmax(bad)) + 1
        raise InputFormatError("<run>", row, f"the score {float(scores[row - 1])!r} is not a finite number")
    table = pa.table({"topic_id": topics, "doc_id": docs, "score": scores})
    positions = np.arange(1, len(table) + 1, dtype=np.int64)
    table = table.append_column("line_number", pa.array(positions))
    table = table.append_column("rank_given", pa.array(rank) if rank is not None else pa.nulls(len(table), pa.int64()))
    table = table.replace_schema_metadata({"checked": "1" if checked else "0"})
    return table


def _empty_run() -> pa.Table:
    """A run that retrieved nothing, as :func:`run_table`'s columns (ir_measures and trec_eval
    score it 0 on every judged topic; docs/loading.md)."""
    import pyarrow as pa

    return pa.table({"topic_id": pa.array([], pa.string()), "doc_id": pa.array([], pa.string()),
                     "score": pa.array([], pa.float64()), "line_number": pa.array([], pa.int64()),
                     "rank_given": pa.array([], pa.int64())}, metadata={"checked": "1"})


#: The run loaded from Arrow (:meth:`Engine.load`): the view run_insert.sql reads as its batch.
_RUN_BATCH = (
    "create or replace temp view run_batch as select 0 as file_index, line_number, topic_id, doc_id, "
    "'{run}' as run_tag, coalesce(rank_given, row_number() over (partition by topic_id order by line_number)) "
    "as rank_given, score from resident_run"
)


class Engine:
    """A resident in-memory warehouse holding one set of qrels: the views are created and the
    qrels loaded once; :meth:`evaluate` loads a run (replacing the previous one) and evaluates
    it. Calls take turns (a lock): an engine may be shared by threads."""

    def __init__(self, qrels: Any):
        self._lock = threading.Lock()
        self.con = warehouse.scratch(RELATIONS)
        try:
            load_qrels(self.con, CAMPAIGN, _frame_rows(qrels))
        except BaseException:
            self.con.close()
            raise

    def _load(self, run: Any) -> None:
        """Replace the engine's run by ``run``."""
        con = self.con
        table = run_table(run)
        with transaction(con):
            con.execute("delete from run_entries")
            con.execute("delete from runs")
        if table is None:  # a file: the run loader (its checks, FILE:LINE errors)
            load_run(con, CAMPAIGN, run, name=RUN)
            return
        con.register("resident_run", table)
        try:
            if table.schema.metadata.get(b"checked") != b"1" and con.execute(
                "select count(*) from (select 1 from resident_run group by topic_id, doc_id having count(*) > 1 limit 1)"
            ).fetchall()[0][0]:  # a document twice for a topic (a hash aggregate; the row only then)
                duplicate = con.execute(
                    "select min(line_number) from (select line_number, count(*) over (partition by topic_id, doc_id "
                    "order by line_number rows between unbounded preceding and current row) as seen "
                    "from resident_run) where seen > 1").fetchall()[0][0]
                raise InputFormatError("<run>", int(duplicate), "a document is given twice for its topic")
            con.execute(_RUN_BATCH.format(run=RUN))  # RUN is pyeval's constant
            create_rows(con, "batch_runs", {"file_index": "integer", "run_id": "varchar"}, [(0, RUN)])
            with transaction(con):
                con.execute("insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256) "
                            "values ($c, $r, $r, '<in memory>', '')", {"c": CAMPAIGN, "r": RUN})
                con.execute(sqlfiles.read("loaders/run_insert.sql"),
                            {"campaign_id": CAMPAIGN, "first_file": 0, "last_file": 0})
        finally:
            con.execute("drop view if exists run_batch")
            con.execute("drop table if exists batch_runs")
            con.unregister("resident_run")

    def evaluate(self, measures: list[Measure], run: Any, ordering: str | None):
        """Load ``run`` and evaluate ``measures`` on it (not stored): a
        :class:`pyeval.evaluation.Evaluation`."""
        with self._lock:
            self._load(run)
            return evaluate(self.con, CAMPAIGN, measures, ordering=ordering, store=False)

    def close(self) -> None:
        with self._lock:
            self.con.close()


def qrels_key(qrels: Any) -> str | None:
    """A key of the qrels' content (sha256 of their Arrow form; a file: its path, size and
    time), for :func:`engine_for`; None when they cannot be keyed (then a new engine each call)."""
    if isinstance(qrels, (str, os.PathLike)):
        try:
            stat = os.stat(qrels)
        except OSError:
            return None
        return f"file:{os.path.realpath(qrels)}:{stat.st_size}:{stat.st_mtime_ns}"
    import pyarrow as pa

    try:
        if is_frame(qrels):
            table = pa.Table.from_pandas(qrels, preserve_index=False)
        elif isinstance(qrels, Mapping):
            names = list(qrels.keys())
            lists = list(qrels.values())
            table = pa.table({
                "topic": _text_array(names),
                "docs": pa.array([list(map(str, docs.keys())) for docs in lists]),
                "levels": pa.array([list(docs.values()) for docs in lists]),
            })
        else:
            return None
    except (pa.ArrowException, TypeError, ValueError):
        return None
    digest = hashlib.sha256()
    for batch in table.to_batches():
        for column in batch.columns:
            for buffer in column.buffers():
                if buffer is not None:
                    digest.update(memoryview(buffer))
    digest.update(str(table.schema).encode("utf-8"))
    return digest.hexdigest()


#: Engines kept per thread (the qrels most recently used).
ENGINES_PER_THREAD = 4
_ENGINES = threading.local()


def engine_for(qrels: Any) -> tuple[Engine, bool]:
    """This thread's engine for ``qrels`` (made on first use, the least recently used dropped
    beyond :data:`ENGINES_PER_THREAD`), and whether it is kept (a throw-away otherwise)."""
    key = qrels_key(qrels)
    if key is None:
        return Engine(qrels), False
    cache = getattr(_ENGINES, "cache", None)
    if cache is None:
        cache = _ENGINES.cache = OrderedDict()
    engine = cache.get(key)
    if engine is None:
        engine = cache[key] = Engine(qrels)
        while len(cache) > ENGINES_PER_THREAD:
            cache.popitem(last=False)[1].close()
    cache.move_to_end(key)
    return engine, True


def _evaluate(measures, qrels, run, ordering: str | None, engine: Engine | None = None
              ) -> tuple[list[tuple[Any, Measure]], pd.DataFrame, pd.DataFrame]:
    pairs = _measures(measures)
    if engine is None and _has_no_rows(qrels):  # no judged topic: no value per topic
        return pairs, *_no_topics(pairs)
    kept = engine is not None
    if engine is None:
        engine, kept = engine_for(qrels)
    try:
        result = engine.evaluate([m for _, m in pairs], run, ordering)
    finally:
        if not kept:
            engine.close()
    return pairs, result.per_topic, result.means


def _has_no_rows(source: Any) -> bool:
    """Whether qrels or a run given as a DataFrame, a mapping or a sequence has no rows (a path
    is read by the loader, which refuses an empty qrels file)."""
    if isinstance(source, (str, os.PathLike)):
        return False
    if is_frame(source) or isinstance(source, (list, tuple)):
        return len(source) == 0
    if isinstance(source, Mapping):
        return all(len(docs) == 0 for docs in source.values())
    return False


def _no_topics(pairs: list[tuple[Any, Measure]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-topic values and means with empty qrels (no judged topic, so no value per topic, as
    ir_measures and trec_eval have it): a sum over no topics is 0, a mean NaN."""
    import pandas as pd

    per_topic = pd.DataFrame(columns=["run_id", "topic_id", "measure", "value"])
    means = pd.DataFrame([(RUN, str(m), 0.0 if m.definition.aggregate == "sum" else math.nan, 0) for _, m in pairs],
                         columns=["run_id", "measure", "value", "topics"])
    return per_topic, means


def _metrics(pairs, per_topic) -> Iterator[Metric]:
    by_name = {str(m): given for given, m in pairs}
    for topic, measure, value in zip(per_topic["topic_id"].tolist(), per_topic["measure"].tolist(),
                                     per_topic["value"].tolist()):
        yield Metric(topic, by_name[measure], float(value))


def _aggregates(pairs, means) -> dict[Any, float]:
    values = dict(zip(means["measure"], means["value"]))
    return {given: float(values[str(m)]) for given, m in pairs}


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


class Evaluator:
    """ir_measures.evaluator(measures, qrels): the measures and qrels, evaluated per run. The
    qrels are loaded once into a resident :class:`Engine`."""

    def __init__(self, measures, qrels, *, ordering: str | None = None):
        self.measures = list(measures) if isinstance(measures, Iterable) and not isinstance(measures, str) else [measures]
        self.ordering = ordering
        self.engine = Engine(qrels)

    def iter_calc(self, run) -> Iterator[Metric]:
        pairs, per_topic, _ = _evaluate(self.measures, None, run, self.ordering, self.engine)
        return _metrics(pairs, per_topic)

    def calc_aggregate(self, run) -> dict[Any, float]:
        pairs, _, means = _evaluate(self.measures, None, run, self.ordering, self.engine)
        return _aggregates(pairs, means)

    def calc(self, run) -> CalcResults:
        pairs, per_topic, means = _evaluate(self.measures, None, run, self.ordering, self.engine)
        return CalcResults(_aggregates(pairs, means), list(_metrics(pairs, per_topic)))

    def close(self) -> None:
        """Close the engine's in-memory warehouse."""
        self.engine.close()


def evaluator(measures, qrels, *, ordering: str | None = None) -> Evaluator:
    """An :class:`Evaluator` (ir_measures.evaluator)."""
    return Evaluator(measures, qrels, ordering=ordering)
