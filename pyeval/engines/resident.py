"""The resident engine: an in-memory warehouse holding one set of qrels, evaluating runs
given in memory (the Python API, pyeval.interop) by the plan's compiled statement.

It executes what :func:`pyeval.core.plan.plan` returns, prepared once per measure set
(:class:`Prepared`): the plan's stages that read only the qrels, and the parts of the
compiled family statements that do (pyeval.core.compile.split), made once as temporary tables;
everything that reads the runs in one select, the runs of a call read as the rows
sql/loaders/run_insert.sql would store (nothing is written), scores and means as
sql/evaluation/means.sql takes them. A measure set whose plan is not one such pass (diversity
stagings, Python drivers, several orderings, own ``judged_only``) is evaluated by the DuckDB
executor (:func:`pyeval.core.evaluation.evaluate`) on the same warehouse: :func:`supports`
says which.
"""
from __future__ import annotations

import functools
import itertools
import operator
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import duckdb

from pyeval.core import compile, sqlfiles
from pyeval.core.db import create_rows, first_row, transaction
from pyeval.core.plan import PREFERENCE_STAGING, Plan, Step, one_statement, plan, staged_tables
from pyeval.core.evaluation import means_select
from pyeval.core.request import EvaluationRequest
from pyeval.core.stages import _create_requested  # a family's requested_measures, as the DuckDB executor makes it
from pyeval.core.stages import create_declared, define_profiles, family_error, pass_relations, requested_table, values_select
from pyeval.errors import InputFormatError, PyevalError
from pyeval.loaders.qrels import load_qrels  # not pyeval.loaders: it imports every loader
from pyeval.loaders.transient import run_relations
from pyeval.loaders.source import STAGED_TABLE, Lines, StagedFile
from pyeval.measures import Measure, registry
from pyeval.storage import warehouse

#: The relations a prepared :class:`Prepared` reads: the loaded tables and the ad hoc gain and
#: ranking views (what the engine's warehouse is made with).
ADHOC_RELATIONS = (*warehouse.LOADED_TABLES, *warehouse.ADHOC_EVALUATION)
#: The relations any evaluation reads: those and the intent views of diversity measures (made
#: when a measure set that no :class:`Prepared` computes first needs them).
RELATIONS = (*ADHOC_RELATIONS, "intent_weights", "intent_gain_values", "global_gains",
             "din_rank_gains", "intent_levels", "profile_gains", "document_lengths")
CAMPAIGN = "ir_measures"
RUN = "run"
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


_HAS_WHITESPACE = re.compile(_WHITESPACE).search


def _may_hold_whitespace(relation: Any) -> bool:
    """Whether a run's identifiers may hold whitespace: searched in Python for the object
    arrays of mappings and namedtuples (cheaper than a query for the few thousand lines of a
    call), always for Arrow columns (a DataFrame's); :func:`_refuse_whitespace` finds the row."""
    if not isinstance(relation, dict):
        return True
    try:  # one search over the identifiers joined by a separator that is not whitespace
        return any(_HAS_WHITESPACE("\x00".join(relation[column].tolist())) is not None
                   for column in ("topic_id", "doc_id"))
    except TypeError:  # not all text
        return True


#: In-memory qrels as the fast path's ``file_fields`` (sql/loaders/qrels_fast_rows.sql reads
#: it): a field the general path would split differently (ASCII whitespace inside, or empty) is
#: null, so that sql/loaders/staged_file_fits.sql sends the qrels to the general path, which
#: names the row. Each field typed as text (a no-op on text): a column of nulls only has no text
#: type, and DuckDB 1.4 then refused the fast path's text functions on it.
_QRELS_FIELDS = (
    "select 0 as file_index, "
    + ", ".join(f"case when not regexp_matches({column}::varchar, '^$|{_WHITESPACE}') then {column}::varchar end as {field}"
                for column, field in (("topic_id", "topic_id"), ("intent_id", "iter"), ("doc_id", "doc_id"),
                                      ("level", "level_text")))
    + " from resident_qrels_rows"
)


class QrelsRows(dict):
    """Qrels given in memory (pyeval.interop): the rows of a TREC qrels file as object arrays
    ``line_number, topic_id, intent_id, doc_id, level``."""


def _stage_qrels(con: duckdb.DuckDBPyConnection, relation: QrelsRows) -> Any:
    """Qrels in memory as :func:`pyeval.loaders.load_qrels` takes them: registered with DuckDB
    as they are and typed into the fast path's staged table
    (:class:`~pyeval.loaders.source.StagedFile`) by the fast path's own SQL when they fit it
    (sql/loaders/staged_file_fits.sql), else as the lines of such a file (the general path,
    which names the bad row). The loader then checks them as a file's rows."""
    rows = len(relation["line_number"])
    con.register("resident_qrels_rows", relation)
    try:
        _refuse_whitespace(con, "(select 0 as file_index, * from resident_qrels_rows)",
                           {"topic_id": "query_id", "intent_id": "iteration", "doc_id": "doc_id"}, lambda _: "<qrels>")
        if rows and first_row(con, "select current_setting('preserve_insertion_order')")[0]:  # rowid: row order
            con.execute(sqlfiles.read("loaders/macros.sql"))  # the typing rules of qrels_fast_rows.sql
            con.execute(f"create or replace temp table {STAGED_TABLE} as\n"
                        + _scoped(sqlfiles.read("loaders/qrels_fast_rows.sql"), {"file_fields": f"({_QRELS_FIELDS})"}))
            if all(first_row(con, sqlfiles.read("loaders/staged_file_fits.sql"))[1:]):
                return StagedFile("<qrels>", "<in memory>", "", STAGED_TABLE, rows)
            con.execute(f"drop table {STAGED_TABLE}")
        table = con.sql("select line_number, concat_ws(' ', topic_id, intent_id, doc_id, level) as line "
                        "from resident_qrels_rows order by line_number").to_arrow_table()
    finally:
        con.unregister("resident_qrels_rows")
    return Lines("<qrels>", "<in memory>", "", table, comments=False)



class RunInput(NamedTuple):
    """A run in memory, as the engine registers it with DuckDB (no copy): ``relation`` has the
    columns ``topic_id, doc_id, score, line_number, rank_given`` (object or Arrow text, float64,
    int64); ``checked``: no document can be given twice for a topic (a mapping's)."""

    relation: Any  # dict of numpy arrays, or a pyarrow Table (DataFrames)
    checked: bool


#: The runs loaded from memory (:meth:`Engine._load`): the view run_insert.sql reads as its
#: batch, ``file_index`` the run's position among the runs of the call.
_RUN_BATCH = (  # the identifiers typed: an empty run's arrays have no text type (DuckDB 1.x then refuses
    # to compare them with the qrels' text; a no-op on text); the ranks: NumPy runs give them as doubles
    "create or replace temp view run_batch as select file_index, line_number, topic_id::varchar as topic_id, "
    "doc_id::varchar as doc_id, rank_given::bigint as rank_given, score from resident_run"
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
#: Stagings of their own a prepared statement does not make (the preferences' closure)
_OWN_STAGINGS = frozenset(staged_tables(PREFERENCE_STAGING))
#: Measure sets prepared per engine (the least recently used dropped beyond).
PLANS_PER_ENGINE = 8


def _scoped(text: str, aliases: Mapping[str, str]) -> str:
    """``text`` (one select of sql/) reading each name of ``aliases`` as the relation it maps
    to: ``with name as (select * from relation), ... select * from (text)``."""
    if not aliases:
        return text
    bindings = ",\n".join(f"{name} as (select * from {relation})" for name, relation in aliases.items())
    return f"with {bindings}\nselect * from (\n{text}\n)"


def _planned(measures: Sequence[Measure], ordering: str | None) -> Plan:
    """The plan of ``measures`` on the engine's runs (:func:`pyeval.core.plan.plan`)."""
    return plan(EvaluationRequest(CAMPAIGN, tuple(measures), runs=(RUN,), ordering=ordering))


def preparable(planned: Plan) -> bool:
    """Whether a :class:`Prepared` statement executes ``planned``: one pass of the ad hoc
    staging whose steps are stages and SQL families only, and numeric values. Other plans
    (several orderings or ``judged_only`` parts, diversity stagings, Python drivers, the
    preferences' own stagings) take :func:`pyeval.core.evaluation.evaluate`."""
    passes = planned.passes
    return (all(m.definition.storable for m in planned.request.measures)
            and len(passes) == 1 and passes[0].staging.kind == "adhoc"
            and one_statement(passes[0])  # as the DuckDB executor runs it: stages and SQL families
            and not set(passes[0].staged) & _OWN_STAGINGS)


def supports(measures: Sequence[Measure], ordering: str | None) -> bool:
    """Whether a :class:`Prepared` statement computes ``measures`` (:func:`preparable`)."""
    return preparable(_planned(measures, ordering))


class Prepared:
    """One measure set prepared in an engine, from the evaluation's own plan
    (:func:`pyeval.core.plan.plan` of its :class:`~pyeval.core.request.EvaluationRequest`: the same stage
    steps, models and bound parameters every engine executes): the stages that read only the
    qrels (headers that read neither ``run_entries`` nor ``ranked_entries``) made once as
    temporary tables, the families' ``requested_measures`` made once, and one statement per
    call: the per-run stages, every family's SQL (sql/metrics/) and the means
    (sql/evaluation/means.sql) as the common table expressions of one select. The SQL is the
    files' own, unchanged: what :func:`pyeval.core.stages.compute_into` and
    :func:`pyeval.core.evaluation.evaluate` run statement by statement."""

    def __init__(self, con, planned: Plan, number: int):
        prefix = f"resident_plan_{number}_"
        self.tables: list[str] = []
        self._statements: dict[str, Any] = {}  # sql -> parsed by DuckDB (_parsed)
        measures = planned.request.measures
        self.families = list(dict.fromkeys(m.family for m in measures))
        for step in planned.setup:  # the gain profiles named: checked, an inline one defined in the engine
            define_profiles(con, step)
        (one_pass,) = planned.passes
        aliases: dict[str, str] = {}
        per_run, expressions, self.params = set(_PER_RUN), [], {}
        try:
            # the pass's relations as the DuckDB executor's one statement holds them
            # (pyeval.core.stages.pass_relations): those that read only the qrels made once
            for step, name, select in pass_relations(one_pass):
                readable = {}
                if step.kind == "family":
                    table = f"{prefix}requested_{step.family}"
                    _create_requested(con, step.family, list(step.measures), table)
                    self.tables.append(table)
                    readable[requested_table(step.family)] = table
                elif not per_run & set(sqlfiles.model(step.model).reads):  # a stage of the qrels alone
                    table = prefix + step.produces  # pyeval's own names
                    con.execute(f"create or replace temp table {table} as\n" + _scoped(select, aliases),
                                dict(step.params))
                    self.tables.append(table)
                    aliases[step.produces] = table
                    continue
                else:  # its parts that read only the qrels made once (the pooled documents)
                    per_run.add(step.produces)
                    self.params.update(step.params)
                # the parts that read only the qrels and the measures: made once
                made = self._made_once(con, step, select, per_run, f"{prefix}{name}_", aliases, readable)
                expressions.append(f"{name} as (\n" + made + "\n)")
            # the request's order as the orchestrator declares it (finish_into): scores and means
            # are sql/evaluation's, as for every engine (means_select: the orchestrator's means)
            order = prefix + "requested_order"
            create_declared(con, "requested_order",
                            [(str(m), position, m.definition.storable) for position, m in enumerate(measures)], order)
            self.tables.append(order)
        except BaseException:
            self.drop(con)
            raise
        means, means_parameters = means_select(measures)
        self.params.update(means_parameters)
        expressions += [f"evaluation_values as (\n{values_select(self.families)}\n)",
                        f"requested_order as (select * from {order})",
                        f"evaluation_scores as (\n{sqlfiles.read('evaluation/evaluation_scores.sql')}\n)",
                        f"means as (\n{means}\n)"]
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
        self.params["order_check_lines"] = None  # runs in memory are never in a file's order (run_insert.sql)

    def _made_once(self, con, step: Step, select: str, per_run: set[str], prefix: str,
                   aliases: Mapping[str, str], readable: dict[str, str]) -> str:
        """The parts of ``select`` (``step``'s relation) that read no relation of ``per_run`` and
        bind no runs (pyeval.core.compile.split) made once as tables named ``prefix`` + their
        name, reading ``aliases`` and ``readable`` (relation -> table); the rest of the SQL,
        returned, reads them and ``readable`` by name."""
        once, per_call = compile.split(select, per_run, _PER_CALL_PARAMETERS)
        for name, text in once:
            table = prefix + name  # pyeval's own names
            try:
                con.execute(f"create or replace temp table {table} as\n" + _scoped(text, {**aliases, **readable}),
                            {k: v for k, v in step.params.items() if k in compile.parameters(text)})
            except duckdb.InvalidInputException as exc:
                raise family_error(exc, self.families) from None
            self.tables.append(table)
            readable[name] = table
        return _scoped(per_call, readable)

    @functools.cached_property
    def sql(self) -> str:
        """The statement over the stored runs (run_entries), compiled on first use."""
        return compile.prune("with " + self._statement)

    @functools.cached_property
    def batch_sql(self) -> str:
        """The statement over the runs of the call (:meth:`Engine._load`'s batch), compiled on
        first use."""
        runs = run_relations(CAMPAIGN).selects  # the run as the loaders would store it, and its ranks
        return compile.prune("with " + "".join(f"{name} as (\n{select}\n),\n" for name, select in runs.items())
                             + self._statement)

    def _parsed(self, con, sql: str) -> Any:
        """``sql`` parsed by DuckDB once per plan (``extract_statements``): each call executes
        the parsed statement, which spares DuckDB's parser the statement's text (about 3 ms of a
        50 x 100 call, bench/bench_api.py)."""
        parsed = self._statements.get(sql)
        if parsed is None:
            (parsed,) = con.extract_statements(sql)
            self._statements[sql] = parsed
        return parsed

    def run(self, con, runs: Sequence[str], batch: bool = False) -> dict[str, Result]:
        """Evaluate the engine's runs named ``runs`` in one statement (the per-run stages and the
        means group by run): for each run, per-topic ``(topic_id, measure, value)`` by topic
        and the order the measures were asked in, and each measure's aggregate by name.
        ``batch``: the runs are the registered batch (:meth:`Engine._load`), not stored ones."""
        sql = self.batch_sql if batch else self.sql
        given = {**self.params, "runs": list(runs), "first_file": 0, "last_file": len(runs) - 1}
        used = compile.parameters(sql)
        try:
            rows = con.execute(self._parsed(con, sql),
                               {name: value for name, value in given.items() if name in used}).fetchall()
        except duckdb.InvalidInputException as exc:
            raise family_error(exc, self.families) from None
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

def _combined(inputs: Sequence[RunInput]) -> Any:
    """The relations of several runs in memory as one, with ``file_index`` (the run's
    position): numpy arrays joined, or an Arrow table when a DataFrame is among them."""
    import numpy as np

    sizes = [len(given.relation["score"]) for given in inputs]
    positions = np.repeat(np.arange(len(inputs), dtype=np.int32), sizes)
    if all(isinstance(given.relation, dict) for given in inputs):
        combined = {column: np.concatenate([given.relation[column] for given in inputs])
                    for column in _RUN_COLUMNS if column != "rank_given"}
        # the null ranks of runs given without them as NaN, which DuckDB's scan of NumPy arrays
        # reads as null (its 1.x versions ignore a masked array's mask); _RUN_BATCH types them back
        ranks = np.ma.concatenate([given.relation["rank_given"] for given in inputs])
        return {"file_index": positions, **combined, "rank_given": ranks.astype(np.float64).filled(np.nan)}
    import pyarrow as pa

    schema = pa.schema([("topic_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64()),
                        ("line_number", pa.int64()), ("rank_given", pa.int64())])
    tables = [pa.table({column: given.relation[column] for column in _RUN_COLUMNS}, schema=schema)
              for given in inputs]
    return pa.concat_tables(tables).append_column("file_index", pa.array(positions))

class Engine:
    """A resident in-memory warehouse holding one set of qrels: the views are created and the
    qrels loaded once; :meth:`evaluate_many` loads runs (replacing the previous ones) and
    evaluates them in one statement of a :class:`Prepared` prepared once per measure set. Calls
    take turns (a lock): an engine may be shared by threads."""

    def __init__(self, qrels: Any, adhoc_qrels: Callable[[], Any] | None = None):
        self._lock = threading.Lock()
        self._plans: OrderedDict[tuple, Prepared | None] = OrderedDict()
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
                self._adhoc_qrels = adhoc_qrels  # diversity qrels given in memory: their ad hoc form
                load_qrels(self.con, CAMPAIGN, _stage_qrels(self.con, qrels) if isinstance(qrels, QrelsRows) else qrels)
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

    def _load(self, runs: Mapping[str, RunInput | str | os.PathLike], labels: Mapping[str, str],
              evaluate: Callable[[list[str]], dict[str, Result]] | None = None) -> dict[str, Result] | None:
        """Replace the engine's runs by ``runs`` (name -> a run in memory or a path): paths
        through the run loader (its checks, FILE:LINE errors), the others registered with
        DuckDB as they are, checked for whitespace in an identifier and a document given twice,
        and ranked by sql/loaders/run_insert.sql in one statement; ``labels`` name each run in
        errors. A bad run raises before anything is replaced. With ``evaluate`` and no file
        among the runs, nothing is stored: ``evaluate(names)`` runs while they are the batch
        sql/loaders/run_insert.sql reads (:meth:`Prepared.run` reading them as run_entries),
        and its result is returned."""
        con = self.con
        given = {name: run for name, run in runs.items() if isinstance(run, RunInput)}
        files = {name: run for name, run in runs.items() if not isinstance(run, RunInput)}
        relation = _combined(list(given.values())) if given else None
        names = list(given)
        if relation is not None:
            con.register("resident_run", relation)
        try:
            if relation is not None and _may_hold_whitespace(relation):
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
                from pyeval.loaders.runs import load_run  # files only

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
                        {"campaign_id": CAMPAIGN, "first_file": 0, "last_file": len(names) - 1,
                         "order_check_lines": None})
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

    def _plan(self, measures: list[Measure], ordering: str | None) -> Prepared | None:
        """The prepared :class:`Prepared` of ``measures`` (made on first use), or None when they are
        not :func:`supports`."""
        key = (tuple(map(str, measures)), ordering)
        if key not in self._plans:
            planned = _planned(measures, ordering)
            self._made += 1
            self._plans[key] = Prepared(self.con, planned, self._made) if preparable(planned) else None
            while len(self._plans) > PLANS_PER_ENGINE:
                dropped = self._plans.popitem(last=False)[1]
                if dropped is not None:
                    dropped.drop(self.con)
        self._plans.move_to_end(key)
        return self._plans[key]

    def evaluate(self, measures: list[Measure], run: RunInput | str | os.PathLike, ordering: str | None) -> Result:
        """Evaluate ``measures`` on ``run`` (not stored): per-topic ``(topic_id, measure,
        value)`` (by topic, then the order asked in) and the aggregates by measure name."""
        return self.evaluate_many(measures, {RUN: run}, ordering, labels={RUN: "<run>"})[RUN]

    def evaluate_many(self, measures: list[Measure], runs: Mapping[str, RunInput | str | os.PathLike],
                      ordering: str | None, labels: Mapping[str, str] | None = None) -> dict[str, Result]:
        """Evaluate ``measures`` on every run of ``runs`` (name -> a run in memory or a path)
        at once, nothing stored: one statement of the :class:`Prepared` plan, so that its
        fixed cost is paid once (a set no prepared plan computes: the DuckDB executor, through
        :func:`pyeval.core.evaluation.evaluate`). Each run's result is what :meth:`evaluate`
        gives for it alone. Errors name the run by ``labels`` (default ``<run NAME>``). Measures
        of generated answers (docs/rag.md) are refused: they score stored answers, not a run."""
        answers = [str(m) for m in measures if m.definition.answer_inputs is not None]
        if answers:
            raise PyevalError(f"{', '.join(answers)}: a measure of generated answers scores the answers stored in a "
                              "warehouse, not a run and qrels: evaluate it with pyeval.evaluate on a campaign that "
                              "holds answers (docs/rag.md)")
        names = list(runs)
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
        return {name: results[name] for name in names}

    def _evaluate_split(self, measures: list[Measure], adhoc: list[Measure], runs: Mapping[Any, Any],
                        ordering: str | None, labels: Mapping[str, str]) -> dict[Any, Result]:
        """Diversity qrels: the ad hoc measures on their ad hoc form (as ir_measures computes
        them: one level per document, the last row's), in a second engine made on first use,
        the others here; each run's values in the order :meth:`evaluate_many` gives them."""
        if self._adhoc_qrels is None:
            raise PyevalError(f"{', '.join(map(str, adhoc))}: ad hoc measures read ad hoc judgments, and a "
                              "diversity qrels file has several per document: give these qrels as a DataFrame "
                              "or Qrel namedtuples (their last row per document counts, as in ir_measures) "
                              "or an ad hoc qrels file")
        if self._adhoc_engine is None:
            self._adhoc_engine = Engine(self._adhoc_qrels())
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

