"""ir_measures' Python API over pyeval's SQL layer: ``calc_aggregate``, ``iter_calc``, ``calc``
and ``evaluator``, with ir_measures' signatures and result types.

Measures may be ir_measures ``Measure`` objects (read through their names, which pyeval parses
with ir_measures' meaning: docs/measures.md), pyeval measures or measure strings. Qrels and runs
may be iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples (or any objects with
``query_id``, ``doc_id`` and ``relevance``/``score``; ``iteration`` names a diversity intent),
dicts of dicts (``{query_id: {doc_id: relevance or score}}``), pandas DataFrames with those
columns, or file paths. The qrels are loaded once into a resident in-memory warehouse
(:class:`Engine`: :func:`pyeval.storage.warehouse.scratch`, its views created once); each measure set
is prepared once (:class:`Plan`: the stages that read only the qrels made once, one statement
per call); each call registers only the run with DuckDB as it is (numpy object arrays from
mappings and namedtuples, Arrow columns from DataFrames: no per-row Python loop, no pandas
unless a DataFrame is given; files through the run loader) and runs that statement, whose SQL
is the families' own (sql/metrics/, follows ir_measures 0.4.3, terrierteam/ir_measures).
Measure sets one statement cannot compute (diversity, Python drivers, several orderings) take
:func:`pyeval.core.evaluation.evaluate`. :func:`evaluator` keeps one engine; the module-level
functions reuse one engine per thread and qrels content (:func:`engine_for`).
:func:`calc_aggregate_many` and :func:`calc_many` (and the evaluator's methods of those names)
take a mapping of run name -> run and evaluate all the runs in one statement of the plan
(:meth:`Engine.evaluate_many`), paying its fixed cost once: each run's values are those of one
call for it alone.

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
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import duckdb

from pyeval.core import compile, sqlfiles
from pyeval.storage import warehouse
from pyeval.core.db import create_rows, first_row, transaction
from .errors import InputFormatError, InputWarning, MeasureParamError, PyevalError
from .loaders.qrels import load_qrels  # not pyeval.loaders: it imports every loader
from .loaders.source import STAGED_TABLE, Lines, StagedFile, is_frame, pick_column
from .measures import Measure, parse, parse_measures, registry
from pyeval.core.plan import plan
from pyeval.core.request import EvaluationRequest
from pyeval.core.stages import check_gain_profiles
from pyeval.core.stages import _create_requested  # a family's requested_measures, as the DuckDB executor makes it

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

#: The relations a prepared :class:`Plan` reads: the loaded tables and the ad hoc gain and
#: ranking views (what the engine's warehouse is made with).
ADHOC_RELATIONS = (*warehouse.LOADED_TABLES, *warehouse.ADHOC_EVALUATION)
#: The relations any evaluation reads: those and the intent views of diversity measures (made
#: when a measure set that no :class:`Plan` computes first needs them).
RELATIONS = (*ADHOC_RELATIONS, "intent_weights", "intent_gain_values", "global_gains",
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


#: What separates the fields of a TREC file (the loaders split lines on it): an identifier
#: given in memory holding one of these characters is refused, in every shape (as a DataFrame's
#: is by :func:`pyeval.loaders.source.frame_lines`), never stripped or split.
_WHITESPACE = "[ \t\n\v\f\r]"


def _refuse_whitespace(con, relation: str, columns: Mapping[str, str], label: Callable[[int], str]) -> None:
    """Raise :class:`InputFormatError` naming the first row of ``relation`` (registered with
    DuckDB: ``file_index``, ``line_number`` and ``columns``, column -> field name) whose
    identifier holds whitespace; ``label`` names the input of a ``file_index``."""
    names = list(columns)
    test = " or ".join(f"regexp_matches({column}, $whitespace)" for column in names)  # pyeval's column names
    row = first_row(con, f"select file_index, line_number, {', '.join(names)} from {relation} where {test} "
                    "order by file_index, line_number limit 1", {"whitespace": _WHITESPACE})
    if row is None:
        return
    column, value = next((c, v) for c, v in zip(names, row[2:]) if v is not None and re.search(_WHITESPACE, v))
    raise InputFormatError(label(row[0]), int(row[1]), f"{columns[column]} {value!r} holds whitespace: identifiers "
                           "cannot (whitespace separates the fields of a TREC file); remove it")


#: In-memory qrels as the fast path's ``file_fields`` (sql/loaders/qrels_fast_rows.sql reads
#: it): a field the general path would split differently (ASCII whitespace inside, or empty) is
#: null, so that sql/loaders/staged_file_fits.sql sends the qrels to the general path, which
#: names the row.
_QRELS_FIELDS = (
    "select 0 as file_index, "
    + ", ".join(f"case when not regexp_matches({column}, '^$|{_WHITESPACE}') then {column} end as {field}"
                for column, field in (("topic_id", "topic_id"), ("intent_id", "iter"), ("doc_id", "doc_id"),
                                      ("level", "level_text")))
    + " from resident_qrels_rows"
)


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
    intent = pick_column(frame, ("iteration", "subtopic_id", "intent_id"), "intent", required=False)
    if intent is None or intent.nunique() <= 1:
        return None
    return {"query_id": pick_column(frame, ("query_id", "qid", "topic_id"), "topic"),
            "doc_id": pick_column(frame, ("doc_id", "docno"), "document"),
            "relevance": pick_column(frame, ("relevance", "label"), "relevance")}


def _qrels_source(con, qrels: Any) -> Any:
    """Qrels as :func:`pyeval.loaders.load_qrels` takes them: a path or a DataFrame as given;
    a mapping or an iterable of Qrel namedtuples as the rows of a TREC qrels file (``topic
    intent doc level``, intent ``0`` unless the ``iteration`` field varies), registered with
    DuckDB as object arrays (no pandas, no pyarrow) and typed into the fast path's staged table
    (:class:`~pyeval.loaders.source.StagedFile`) by the fast path's own SQL when they fit it
    (sql/loaders/staged_file_fits.sql), else as the lines of such a file (the general path,
    which names the bad row). The loader then checks them as a file's rows. Returned with the
    columns of their ad hoc form (:func:`_adhoc_judgments`) when they are diversity qrels given in
    memory."""
    if isinstance(qrels, (str, os.PathLike)):
        return qrels, None
    if is_frame(qrels):
        return qrels, _frame_adhoc_columns(qrels)
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
    relation = {"line_number": np.arange(1, rows + 1, dtype=np.int64), "topic_id": columns["query_id"],
                "intent_id": intents, "doc_id": columns["doc_id"], "level": _texts(columns["relevance"])}
    con.register("resident_qrels_rows", relation)
    try:
        _refuse_whitespace(con, "(select 0 as file_index, * from resident_qrels_rows)",
                           {"topic_id": "query_id", "intent_id": "iteration", "doc_id": "doc_id"}, lambda _: "<qrels>")
        if rows and first_row(con, "select current_setting('preserve_insertion_order')")[0]:  # rowid: row order
            con.execute(sqlfiles.read("loaders/macros.sql"))  # the typing rules of qrels_fast_rows.sql
            con.execute(f"create or replace temp table {STAGED_TABLE} as\n"
                        + _scoped(sqlfiles.read("loaders/qrels_fast_rows.sql"), {"file_fields": f"({_QRELS_FIELDS})"}))
            if all(first_row(con, sqlfiles.read("loaders/staged_file_fits.sql"))[1:]):
                return StagedFile("<qrels>", "<in memory>", "", STAGED_TABLE, rows), adhoc
            con.execute(f"drop table {STAGED_TABLE}")
        table = con.sql("select line_number, concat_ws(' ', topic_id, intent_id, doc_id, level) as line "
                        "from resident_qrels_rows order by line_number").to_arrow_table()
    finally:
        con.unregister("resident_qrels_rows")
    return Lines("<qrels>", "<in memory>", "", table, comments=False), adhoc


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


class RunInput(NamedTuple):
    """A run in memory, as the engine registers it with DuckDB (no copy): ``relation`` has the
    columns ``topic_id, doc_id, score, line_number, rank_given`` (object or Arrow text, float64,
    int64); ``checked``: no document can be given twice for a topic (a mapping's)."""

    relation: Any  # dict of numpy arrays, or a pyarrow Table (DataFrames)
    checked: bool


def run_table(run: Any, label: str = "<run>") -> RunInput | None:
    """A run as :class:`RunInput` (no per-row Python loop), or None for a path (the run loader
    reads files). ``line_number`` is the row's position (1-based), which errors name. Without a
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
    if isinstance(run, (str, os.PathLike)):
        return None
    import numpy as np

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


#: The runs loaded from memory (:meth:`Engine._load`): the view run_insert.sql reads as its
#: batch, ``file_index`` the run's position among the runs of the call.
_RUN_BATCH = (
    "create or replace temp view run_batch as select file_index, line_number, topic_id, doc_id, "
    "rank_given, score from resident_run"
)
#: The columns of a run in memory (:func:`run_table`), and the run's position added to them.
_RUN_COLUMNS = ("topic_id", "doc_id", "score", "line_number", "rank_given")
#: Per-run relations: a stage that reads one (or a stage that does) is computed at every call.
_PER_RUN = frozenset({"run_entries", "ranked_entries"})
#: Run lines below which a call's statement runs on one DuckDB thread (bench/bench_api.py:
#: 50 x 100 lines cost 15-20 % less CPU, and no more wall time, than on every core)
SMALL_BATCH = 100_000
#: The parameters bound at each call (the runs), never when a plan is prepared
_PER_CALL_PARAMETERS = ("runs", "first_file", "last_file")
#: Measure sets prepared per engine (the least recently used dropped beyond).
PLANS_PER_ENGINE = 8


def _scoped(text: str, aliases: Mapping[str, str]) -> str:
    """``text`` (one select of sql/) reading each name of ``aliases`` as the relation it maps
    to: ``with name as (select * from relation), ... select * from (text)``."""
    if not aliases:
        return text
    bindings = ",\n".join(f"{name} as (select * from {relation})" for name, relation in aliases.items())
    return f"with {bindings}\nselect * from (\n{text}\n)"


def preparable(measures: Sequence[Measure], ordering: str | None) -> bool:
    """Whether one prepared statement computes ``measures`` (:class:`Plan`): ad hoc SQL families
    only (no Python driver, no diversity staging, no preferences), numeric values, one ordering
    for all (``ordering``, else each measure's own), none with its own ``judged_only``. Other
    sets take :func:`pyeval.core.evaluation.evaluate`."""
    return (
        all(m.definition.staging == "adhoc" and m.definition.storable and registry.driver(m.family) is None
            and m.family != "preferences" and not (m.has("judged_only") and m["judged_only"]) for m in measures)
        and len({ordering or m.definition.ordering for m in measures}) == 1
    )


def _family_error(exc: duckdb.InvalidInputException, families: Sequence[str]) -> Exception:
    """A family's own error('metric_<family>: ...') as :class:`MeasureParamError` (a measure
    that does not apply to these data, as pyeval.core.stages.compute_into reports it); ``exc``
    itself otherwise."""
    text = str(exc)
    marker = next((f"metric_{family}:" for family in families if f"metric_{family}:" in text), None)
    return exc if marker is None else MeasureParamError(text[text.index(marker):])


class Plan:
    """One measure set prepared in an engine, from the evaluation's own plan
    (:func:`pyeval.core.plan.plan` of its :class:`~pyeval.core.request.EvaluationRequest`: the same stage
    steps, models and bound parameters every engine executes): the stages that read only the
    qrels (headers that read neither ``run_entries`` nor ``ranked_entries``) made once as
    temporary tables, the families' ``requested_measures`` made once, and one statement per
    call: the per-run stages, every family's SQL (sql/metrics/) and the means
    (sql/evaluation/means.sql) as the common table expressions of one select. The SQL is the
    files' own, unchanged: what :func:`pyeval.core.stages.compute_into` and
    :func:`pyeval.core.evaluation.evaluate` run statement by statement."""

    def __init__(self, con, measures: Sequence[Measure], ordering: str, number: int):
        prefix = f"resident_plan_{number}_"
        self.tables: list[str] = []
        self.families = list(dict.fromkeys(m.family for m in measures))
        check_gain_profiles(con, CAMPAIGN, measures)  # inline profiles stored in the engine
        (one_pass,) = plan(EvaluationRequest(CAMPAIGN, tuple(measures), runs=(RUN,), ordering=ordering)).passes
        aliases: dict[str, str] = {}
        # the means as an evaluation takes them (a compensated sum, sql/evaluation/means.sql)
        per_run, expressions, self.params = set(_PER_RUN), [], {"in_topic_order": False}
        try:
            for step in (s for s in one_pass.steps if s.kind == "stage"):
                model = sqlfiles.model(step.model)
                if per_run & set(model.reads):
                    # its parts that read only the qrels made once (the pooled documents)
                    once, per_call = compile.split(step.text, per_run, _PER_CALL_PARAMETERS)
                    readable = dict(aliases)
                    for name, text in once:
                        made = f"{prefix}{step.produces}_{name}"
                        con.execute(f"create or replace temp table {made} as\n" + _scoped(text, readable),
                                    {k: v for k, v in step.params.items() if k in compile.parameters(text)})
                        self.tables.append(made)
                        readable[name] = made
                    per_run.add(step.produces)
                    expressions.append(f"{step.produces} as (\n"
                                       + _scoped(per_call, {k: v for k, v in readable.items() if k not in aliases})
                                       + "\n)")
                    self.params.update(step.params)
                    continue
                table = prefix + step.produces  # pyeval's own names
                con.execute(f"create or replace temp table {table} as\n"
                            + _scoped(sqlfiles.read(step.model), aliases), dict(step.params))
                self.tables.append(table)
                aliases[step.produces] = table
            for step in (s for s in one_pass.steps if s.kind == "family"):
                family = step.family
                table = f"{prefix}requested_{family}"
                _create_requested(con, family, list(step.measures), table)
                self.tables.append(table)
                # the family's parts that read only the qrels and its measures: made once
                once, per_call = compile.split(step.text, per_run, _PER_CALL_PARAMETERS)
                readable = {"requested_measures": table}
                for name, text in once:
                    made = f"{prefix}{family}_{name}"
                    try:
                        con.execute(f"create or replace temp table {made} as\n" + _scoped(text, {**aliases, **readable}))
                    except duckdb.InvalidInputException as exc:
                        raise _family_error(exc, [family]) from None
                    self.tables.append(made)
                    readable[name] = made
                expressions.append(f"metric_{family} as (\n" + _scoped(per_call, readable) + "\n)")
            order = prefix + "requested_order"
            create_rows(con, order, {"measure": "varchar", "position": "integer", "aggregate": "varchar"},
                        [(str(m), position, m.definition.aggregate) for position, m in enumerate(measures)])
            self.tables.append(order)
        except BaseException:
            self.drop(con)
            raise
        scores = "\nunion all\n".join(f"select run_id, topic_id, measure, value from metric_{family}"
                                      for family in self.families)
        expressions += [f"evaluation_scores as (\n{scores}\n)",
                        f"requested_aggregates as (select measure, aggregate from {order})",
                        f"means as (\n{sqlfiles.read('evaluation/means.sql')}\n)"]
        bindings = [f"{name} as (select * from {relation})" for name, relation in aliases.items()]
        statement = (
            ",\n".join(bindings + expressions) + "\n"
            "select values.run_id, values.topic_id, values.measure, values.value from (\n"
            "    select run_id, null::varchar as topic_id, measure, value from means\n"
            "    union all\n"
            "    select run_id, topic_id, measure, value from evaluation_scores\n"
            f") as values inner join {order} as requested on values.measure = requested.measure\n"
            "order by values.run_id, values.topic_id nulls first, requested.position"
        )
        # each statement pruned whole (pyeval.core.compile): the stages' columns no family reads
        # dropped. sql: the stored runs (run_entries); batch_sql: the runs of the call as
        # sql/loaders/run_insert.sql would store them, read as run_entries, nothing stored
        self._statement = statement
        self.params["campaign_id"] = CAMPAIGN

    @functools.cached_property
    def sql(self) -> str:
        """The statement over the stored runs (run_entries), compiled on first use."""
        return compile.prune("with " + self._statement)

    @functools.cached_property
    def batch_sql(self) -> str:
        """The statement over the runs of the call (:meth:`Engine._load`'s batch), compiled on
        first use."""
        return compile.prune(f"with run_entries as (\n{sqlfiles.insert_select('loaders/run_insert.sql')}\n),\n"
                             f"ranked_entries as (\n{sqlfiles.view_sql('ranked_entries')}\n),\n" + self._statement)

    def run(self, con, runs: Sequence[str], batch: bool = False) -> dict[str, Result]:
        """Evaluate the engine's runs named ``runs`` in one statement (the per-run stages and the
        means group by run): for each run, per-topic ``(topic_id, measure, value)`` by topic
        and the order the measures were asked in, and each measure's aggregate by name.
        ``batch``: the runs are the registered batch (:meth:`Engine._load`), not stored ones."""
        sql = self.batch_sql if batch else self.sql
        given = {**self.params, "runs": list(runs), "first_file": 0, "last_file": len(runs) - 1}
        used = compile.parameters(sql)
        try:
            rows = con.execute(sql, {name: value for name, value in given.items() if name in used}).fetchall()
        except duckdb.InvalidInputException as exc:
            raise _family_error(exc, self.families) from None
        results: dict[str, Result] = {run: ([], {}) for run in runs}
        for run_id, run_rows in itertools.groupby(rows, operator.itemgetter(0)):
            per_topic, means = results[run_id]
            for _, topic, measure, value in run_rows:
                if topic is None:
                    means[measure] = value
                else:
                    per_topic.append((topic, measure, value))
        return results

    def drop(self, con) -> None:
        for table in self.tables:
            con.execute(f"drop table if exists {table}")  # pyeval's own names


#: One run's values: per-topic ``(topic_id, measure, value)`` and the aggregates by measure name.
Result = tuple[list[tuple[str, str, float]], dict[str, float]]


def _run_names(runs: Mapping[Any, Any]) -> list[str]:
    """The run names of ``runs``' keys (their text), which must differ."""
    names = [str(key) for key in runs]
    if len(set(names)) < len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise PyevalError(f"two runs are named {twice!r}: give each run its own name")
    return names


def _combined(inputs: Sequence[RunInput]) -> Any:
    """The relations of several runs in memory as one, with ``file_index`` (the run's
    position): numpy arrays joined, or an Arrow table when a DataFrame is among them."""
    import numpy as np

    sizes = [len(given.relation["score"]) for given in inputs]
    positions = np.repeat(np.arange(len(inputs), dtype=np.int32), sizes)
    if all(isinstance(given.relation, dict) for given in inputs):
        # np.ma keeps the null ranks of runs given without them (a plain concatenate drops the mask)
        combined = {column: (np.ma if column == "rank_given" else np).concatenate(
            [given.relation[column] for given in inputs]) for column in _RUN_COLUMNS}
        return {"file_index": positions, **combined}
    import pyarrow as pa

    schema = pa.schema([("topic_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64()),
                        ("line_number", pa.int64()), ("rank_given", pa.int64())])
    tables = [pa.table({column: given.relation[column] for column in _RUN_COLUMNS}, schema=schema)
              for given in inputs]
    return pa.concat_tables(tables).append_column("file_index", pa.array(positions))


class Engine:
    """A resident in-memory warehouse holding one set of qrels: the views are created and the
    qrels loaded once; :meth:`evaluate_many` loads runs (replacing the previous ones) and
    evaluates them in one statement of a :class:`Plan` prepared once per measure set. Calls
    take turns (a lock): an engine may be shared by threads."""

    def __init__(self, qrels: Any):
        self._lock = threading.Lock()
        self._plans: OrderedDict[tuple, Plan | None] = OrderedDict()
        self._batch_ready = False  # run_batch exists (a file's load drops it)
        self._batch_runs: list[str] | None = None  # the names batch_runs holds
        self._run_rows: list[str] | None = []  # the names the runs table holds (None: unknown)
        self._made = 0  # plans made (their tables' numbers)
        self._threads: int | None = None  # DuckDB threads set for the batch (None: every core)
        self._complete = False  # the relations beyond ADHOC_RELATIONS made
        self.con = warehouse.scratch(ADHOC_RELATIONS)
        self._adhoc_engine: Engine | None = None  # diversity qrels' ad hoc form, made on first use
        try:
            try:
                source, self._adhoc_columns = _qrels_source(self.con, qrels)  # diversity qrels: for _adhoc_judgments
                load_qrels(self.con, CAMPAIGN, source)
                # diversity qrels: no ad hoc judgment (intent_id = '') for the ad hoc measures to read
                self.diversity = not first_row(self.con, "select count(*) from topic_levels")[0]
            finally:
                self.con.execute(f"drop table if exists {STAGED_TABLE}")  # in-memory qrels staged
            self.con.execute(sqlfiles.read("evaluation/macros.sql"))
        except BaseException:
            self.con.close()
            raise

    def _set_runs(self, names: list[str]) -> None:
        """Make the runs table hold a row for each of ``names`` (none of their entries)."""
        con = self.con
        con.execute("delete from run_entries")
        if self._run_rows == names:
            return
        self._run_rows = None
        with transaction(con):
            con.execute("delete from runs")
            if names:
                con.execute("insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256) "
                            "select $c, unnest($r), unnest($r), '<in memory>', ''", {"c": CAMPAIGN, "r": names})
        self._run_rows = names

    def _load(self, runs: Mapping[str, Any], labels: Mapping[str, str],
              evaluate: Callable[[list[str]], dict[str, Result]] | None = None) -> dict[str, Result] | None:
        """Replace the engine's runs by ``runs`` (name -> run): paths through the run loader
        (its checks, FILE:LINE errors), the other forms registered with DuckDB as they are
        (:func:`run_table`), checked for a document given twice, and ranked by
        sql/loaders/run_insert.sql in one statement; ``labels`` name each run in errors. A
        bad run raises before anything is replaced. With ``evaluate`` and no file among the
        runs, nothing is stored: ``evaluate(names)`` runs while they are the batch
        sql/loaders/run_insert.sql reads (:meth:`Plan.run` reading them as run_entries), and
        its result is returned."""
        con = self.con
        given: dict[str, RunInput] = {}
        files: dict[str, Any] = {}
        for name, run in runs.items():
            try:
                table = run_table(run, labels[name])
            except PyevalError as exc:
                if isinstance(exc, InputFormatError) or len(runs) == 1:
                    raise  # named by its label already, or the only run
                raise PyevalError(f"{labels[name]}: {exc}") from None
            if table is None:
                files[name] = run
            else:
                given[name] = table
        relation = _combined(list(given.values())) if given else None
        names = list(given)
        if relation is not None:
            con.register("resident_run", relation)
        try:
            if relation is not None:
                _refuse_whitespace(con, "resident_run", {"topic_id": "query_id", "doc_id": "doc_id"},
                                   lambda index: labels[names[index]])
            if relation is not None and not all(item.checked for item in given.values()) and con.execute(
                "select count(*) from (select hash(file_index, topic_id, doc_id) as pair from resident_run "
                "group by pair having count(*) > 1 limit 1)"
            ).fetchall()[0][0]:  # a document twice for a topic, or two triples of one hash: the row, if any
                duplicate = con.execute(
                    "select file_index, line_number from (select file_index, line_number, count(*) over "
                    "(partition by file_index, topic_id, doc_id order by line_number rows between unbounded "
                    "preceding and current row) as seen from resident_run) where seen > 1 "
                    "order by file_index, line_number limit 1").fetchall()
                if duplicate:
                    index, line = duplicate[0]
                    raise InputFormatError(labels[names[index]], int(line), "a document is given twice for its topic")
            if evaluate is not None and not files and relation is not None:
                self._batch(names)
                self._threads_for(sum(len(given[name].relation["score"]) for name in names))
                return evaluate(names)
            if files:
                from .loaders.runs import load_run  # files only

                self._set_runs(names)  # the runs in memory; the loader adds each file's
                self._run_rows = None  # the next call rewrites the runs table
                self._batch_ready, self._batch_runs = False, None  # a file's load drops the batch
                for name, path in files.items():
                    load_run(con, CAMPAIGN, path, name=name)
            else:
                self._set_runs(names)
            if relation is None:
                return None
            self._batch(names)
            con.execute(sqlfiles.read("loaders/run_insert.sql"),
                        {"campaign_id": CAMPAIGN, "first_file": 0, "last_file": len(names) - 1})
            return None
        finally:
            if relation is not None:
                con.unregister("resident_run")

    def _threads_for(self, lines: int) -> None:
        """One DuckDB thread for a batch of fewer than :data:`SMALL_BATCH` run lines (threads
        cost more than they save on them), every core beyond."""
        wanted = 1 if lines < SMALL_BATCH else None
        if wanted != self._threads:
            self.con.execute("set threads = 1" if wanted == 1 else "reset threads")
            self._threads = wanted

    def _batch(self, names: list[str]) -> None:
        """The registered runs as the batch sql/loaders/run_insert.sql reads (run_batch,
        batch_runs: ``names`` by position)."""
        if not self._batch_ready:
            self.con.execute(_RUN_BATCH)
            self._batch_ready = True
        if self._batch_runs != names:
            self._batch_runs = None
            create_rows(self.con, "batch_runs", {"file_index": "integer", "run_id": "varchar"}, list(enumerate(names)))
            self._batch_runs = names

    def _make_all_relations(self) -> None:
        """Add to the engine's warehouse the tables and views of :data:`RELATIONS` it lacks (the
        diversity intent views, document lengths), once."""
        if self._complete:
            return
        made_tables, made_views = sqlfiles.with_dependencies(ADHOC_RELATIONS)
        tables, views = sqlfiles.with_dependencies(RELATIONS)
        for table in tables:
            if table not in made_tables:
                self.con.execute(sqlfiles.table_sql(table))  # our own DDL; table names are pyeval's
        warehouse.create_views(self.con, [view for view in views if view not in made_views], stamp=False)
        self._complete = True

    def _plan(self, measures: list[Measure], ordering: str | None) -> Plan | None:
        """The prepared :class:`Plan` of ``measures`` (made on first use), or None when they are
        not :func:`preparable`."""
        key = (tuple(map(str, measures)), ordering)
        if key not in self._plans:
            chosen = ordering or measures[0].definition.ordering
            self._made += 1
            self._plans[key] = Plan(self.con, measures, chosen, self._made) if preparable(measures, ordering) else None
            while len(self._plans) > PLANS_PER_ENGINE:
                dropped = self._plans.popitem(last=False)[1]
                if dropped is not None:
                    dropped.drop(self.con)
        self._plans.move_to_end(key)
        return self._plans[key]

    def evaluate(self, measures: list[Measure], run: Any, ordering: str | None) -> Result:
        """Load ``run`` and evaluate ``measures`` on it (not stored): per-topic ``(topic_id,
        measure, value)`` (by topic, then the order asked in) and the aggregates by measure name."""
        return self.evaluate_many(measures, {RUN: run}, ordering, labels={RUN: "<run>"})[RUN]

    def evaluate_many(self, measures: list[Measure], runs: Mapping[Any, Any], ordering: str | None,
                      labels: Mapping[str, str] | None = None) -> dict[Any, Result]:
        """Load ``runs`` (name -> run, any form :meth:`evaluate` takes) and evaluate ``measures``
        on all of them at once (not stored): one statement of the prepared :class:`Plan`, so
        that its fixed cost is paid once. Each run's result, by the keys given, is what
        :meth:`evaluate` gives for it alone. Errors name the run (``<run NAME>:ROW: ...``)."""
        names = _run_names(runs)
        if labels is None:
            labels = {name: f"<run {name}>" for name in names}
        adhoc = [m for m in measures if registry.reads_adhoc_qrels(m)] if self.diversity else []
        if adhoc:
            return self._evaluate_split(measures, adhoc, runs, ordering, labels)
        with self._lock:
            plan = self._plan(measures, ordering) if names else None
            if plan is not None:  # runs in memory: read by the statement as they are, never stored
                results = self._load(dict(zip(names, runs.values())), labels,
                                     evaluate=lambda batch: plan.run(self.con, batch, batch=True))
                if results is None:  # a file among them: every run stored
                    results = plan.run(self.con, names)
            else:
                self._load(dict(zip(names, runs.values())), labels)
                if not names:
                    return {}
                results = self._evaluate_general(measures, names, ordering)
        return {key: results[name] for key, name in zip(runs, names)}

    def _evaluate_split(self, measures: list[Measure], adhoc: list[Measure], runs: Mapping[Any, Any],
                        ordering: str | None, labels: Mapping[str, str]) -> dict[Any, Result]:
        """Diversity qrels: the ad hoc measures on their ad hoc form (as ir_measures computes
        them: one level per document, the last row's), in a second engine made on first use,
        the others here; each run's values in the order :meth:`evaluate_many` gives them."""
        if self._adhoc_columns is None:
            raise PyevalError(f"{', '.join(map(str, adhoc))}: ad hoc measures read ad hoc judgments, and a "
                              "diversity qrels file has several per document: give these qrels as a DataFrame "
                              "or Qrel namedtuples (their last row per document counts, as in ir_measures) "
                              "or an ad hoc qrels file")
        if self._adhoc_engine is None:
            self._adhoc_engine = Engine(_adhoc_judgments(self._adhoc_columns))
        runs = {key: run if isinstance(run, (str, os.PathLike)) or is_frame(run) or isinstance(run, Mapping)
                else list(run) for key, run in runs.items()}  # read twice
        rest = [m for m in measures if m not in adhoc]
        parts = [self._adhoc_engine.evaluate_many(adhoc, runs, ordering, labels)]
        if rest:
            parts.append(self.evaluate_many(rest, runs, ordering, labels))
        position = {str(m): index for index, m in enumerate(measures)}
        results: dict[Any, Result] = {}
        for key in runs:
            per_topic = sorted((row for part in parts for row in part[key][0]),
                               key=lambda row: (row[0], position[row[1]]))
            results[key] = (per_topic, {name: value for part in parts for name, value in part[key][1].items()})
        return results

    def _evaluate_general(self, measures: list[Measure], names: list[str], ordering: str | None
                          ) -> dict[str, Result]:
        """:func:`pyeval.core.evaluation.evaluate` of the loaded runs: the measure sets one
        statement does not compute."""
        from pyeval.core.evaluation import evaluate

        self._make_all_relations()
        result = evaluate(self.con, CAMPAIGN, measures, runs=names, ordering=ordering, store=False)
        results: dict[str, Result] = {name: ([], {}) for name in names}
        per_topic = result.per_topic
        for run_id, topic, measure, value in zip(per_topic["run_id"].tolist(), per_topic["topic_id"].tolist(),
                                                 per_topic["measure"].tolist(), per_topic["value"].tolist()):
            results[run_id][0].append((topic, measure, value))
        for run_id, measure, value in zip(result.means["run_id"].tolist(), result.means["measure"].tolist(),
                                          result.means["value"].tolist()):
            results[run_id][1][measure] = value
        return results

    def close(self) -> None:
        with self._lock:
            self.con.close()
            if self._adhoc_engine is not None:
                self._adhoc_engine.close()


#: Types whose ``repr`` is their value: a mapping of them is keyed by its ``repr``.
_VALUE_TYPES = (str, int, float, bool)


def qrels_key(qrels: Any) -> str | None:
    """A key of the qrels' content, for :func:`engine_for`: a mapping's ``repr`` (its
    identifiers and levels being strings and numbers), a DataFrame's Arrow buffers (sha256),
    a file's path, size and time; None when they cannot be keyed (then a new engine each call)."""
    if isinstance(qrels, (str, os.PathLike)):
        try:
            stat = os.stat(qrels)
        except OSError:
            return None
        return f"file:{os.path.realpath(qrels)}:{stat.st_size}:{stat.st_mtime_ns}"
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
    if not is_frame(qrels):
        return None
    import pyarrow as pa

    try:
        table = pa.Table.from_pandas(qrels, preserve_index=False)
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
        results = engine.evaluate_many(unique, runs, ordering, labels={RUN: "<run>"} if single else None)
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
        if isinstance(qrels, Iterator):
            qrels = list(qrels)
        # qrels without rows judge no topic: each call gives what the functions give (no engine)
        self._empty_qrels = qrels if _has_no_rows(qrels) else None
        self.engine = None if self._empty_qrels is not None else Engine(qrels)

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
