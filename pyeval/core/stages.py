"""The DuckDB engine: execute an evaluation's plan on a connection, and what the stages share.

An evaluation's steps come from its plan (:func:`pyeval.core.plan.plan`, derived from the headers of
sql/); :class:`DuckDBExecutor` runs them on a DuckDB connection. A pass of stages and SQL
families only (every ad hoc pass without a Python driver) is one statement
(:func:`pass_statement`): each stage its header's relation as a common table expression, each
metric family's SQL (sql/metrics/, compiled for its measures) reading its own
``requested_measures`` (sql/evaluation/requested_measures.sql), their rows appended to
``evaluation_values`` (sql/evaluation/evaluation_values.sql), every parameter a stage's header
declares bound once. A pass with a Python family driver (family_drivers.register_driver:
pyeval/drivers/) or a composite's component rows stages each relation as the temporary table
its header declares and runs each family as a statement of its own, since Python reads the
staged tables. A ``profiles`` step checks the gain profiles named and defines an inline one
(:func:`define_profiles`). Every formula is in sql/metrics/ (one file per family) or in a
driver. pyeval.core.evaluation (the orchestrator) builds on this module.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import create_rows, insert_bound_rows
from pyeval.errors import MeasureParamError
from pyeval.core.gains import define_gain_profile
from pyeval.measures import Measure, registry
from pyeval.measures.common import BUILTIN_GAIN_PROFILES, STAGING_PARAMS, is_inline_profile
from pyeval.core.plan import ADHOC_STAGING, Pass, Plan, Step, execute, one_statement, plan, profiles_step, stage_steps, staged_tables, stages_read  # noqa: F401
from pyeval.core.request import EvaluationRequest

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `pyeval trec_eval` needs none
    import pandas as pd

#: The temporary table the executor fills (sql/evaluation/evaluation_values.sql declares it).
VALUES_TABLE = "evaluation_values"


def run_stages(con, files: Iterable[str], parameters: Mapping[str, object], needed: set[str] | None = None
               ) -> list[str]:
    """Create the relation each of ``files`` (sql/evaluation/<file>.sql, or sql/<file>.sql for
    a name with a directory) produces, in the order their headers' ``reads`` require, after the
    evaluation macros, each given the parameters it declares from ``parameters``
    (:func:`pyeval.core.plan.stage_steps`). With ``needed``, only those and the stages they are built
    from. Returns the relations created."""
    executor = DuckDBExecutor(con)
    steps = stage_steps(files, parameters, needed)
    for step in steps:
        executor.macros(step) if step.kind == "macros" else executor.stage(step)
    return [step.produces for step in steps if step.kind == "stage"]


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


def _create_requested(con, family: str, family_measures: list[Measure], table: str = "requested_measures") -> None:
    """The family's ``requested_measures`` relation (sql/metrics/ headers), as the temporary
    table ``table`` (a name of pyeval's)."""
    params = _requested_params(family)
    declared = sqlfiles.model("evaluation/requested_measures.sql").columns[:2]  # measure, kind
    columns = {**dict.fromkeys(declared, "varchar"), **{n: _SQL_TYPES[t] for n, t in params.items()}}
    create_rows(con, table, columns, _requested_rows(family, family_measures))


def define_profiles(con, step: Step) -> None:
    """Execute a plan's ``profiles`` step (pyeval.core.plan.profiles_step) on the warehouse
    ``con``: every gain profile it names is stored for its campaign, or inline (``'0=1,1=4'``,
    defined here under that name, which says what it is; :func:`pyeval.core.evaluation.evaluate`
    keeps it only with a stored evaluation that used it). MeasureParamError for any other name.
    Every engine's executor runs the step through this function."""
    campaign_id, wanted = step.params["campaign_id"], set(step.params["profiles"])
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


@dataclass(frozen=True)
class DefinedRelations:
    """Relations a pass statement defines itself, read by its stages in place of the
    warehouse's tables and views of the same names: ``selects`` (name -> select, each reading
    the ones before it) and the parameters they take (``params``). Nothing stores them."""

    selects: Mapping[str, str]
    params: Mapping[str, object] = field(default_factory=dict)


def compute_into(con: duckdb.DuckDBPyConnection, request: EvaluationRequest,
                 defined: DefinedRelations | None = None, planned: Plan | None = None) -> None:
    """Compute ``request``'s measures into the temporary table ``evaluation_values``
    (``run_id, topic_id, measure, value, value_text``; unordered): its plan
    (:func:`pyeval.core.plan.plan`, its gain profiles first; ``planned``: that plan, when the
    caller made it) executed on DuckDB, each pass statement defining ``defined`` (a plan
    :func:`statements_only` makes). pandas is imported only when a Python family or a diversity
    plan computes."""
    planned = planned if planned is not None else plan(request)
    execute(planned, DuckDBExecutor(con, planned, defined))


def statements_only(planned: Plan) -> bool:
    """Whether the DuckDB executor runs every pass of ``planned`` as one statement
    (:func:`one_statement`, with a family): no stage is a table, so relations the statement
    defines (:class:`DefinedRelations`) may stand for stored ones."""
    return all(any(step.kind == "family" for step in current.steps) and one_statement(current)
               for current in planned.passes)


def requested_table(family: str) -> str:
    """The temporary table holding ``family``'s ``requested_measures`` in a pass statement."""
    return f"requested_measures_{family}"  # a family's name is a file of sql/metrics/, never user input


def pass_relations(current: Pass) -> Iterator[tuple[Step, str, str]]:
    """The relations of a pass's stages and SQL families, in order, as ``(step, name, select)``:
    a stage its header's relation (its file as it is), a family ``metric_<family>`` (its SQL
    compiled for its measures, reading ``requested_measures`` as :func:`requested_table`).
    Every engine that runs a pass as one statement builds it from these (:func:`pass_statement`,
    pyeval.engines.resident.Prepared)."""
    for step in current.steps:
        if step.kind == "stage":  # relation names come from pyeval's own headers, never user input
            yield step, step.produces, step.text
        elif step.kind == "family":
            yield step, f"metric_{step.family}", (
                f"with requested_measures as (select * from {requested_table(step.family)})\n"
                f"select * from (\n{step.text}\n)")


def values_select(families: Iterable[str]) -> str:
    """The rows of every ``metric_<family>`` relation of ``families`` as evaluation_values takes
    them (``union all by name``: a family gives ``value`` or ``value_text``)."""
    return "\nunion all by name\n".join(f"select * from metric_{family}" for family in families)


def pass_statement(current: Pass, defined: DefinedRelations | None = None) -> tuple[str, dict[str, object]]:
    """The select that computes the families of ``current`` (a pass :func:`one_statement`
    makes) and its parameters: each relation of ``defined``, then of :func:`pass_relations`, a
    common table expression, the families' rows :func:`values_select`. DuckDB computes only
    what the families read, and a relation read several times once."""
    defined = defined or DefinedRelations({})
    parameters: dict[str, object] = dict(defined.params)
    for step in current.steps:
        if step.kind == "stage":
            for name, value in step.params.items():
                if parameters.setdefault(name, value) != value:
                    raise ValueError(f"parameter ${name} is bound to two values in one statement")
    # relation names are pyeval's own (headers, the loaders' relations), never user input
    expressions = [f"{name} as (\n{select}\n)" for name, select in defined.selects.items()]
    expressions += [f"{name} as (\n{select}\n)" for _, name, select in pass_relations(current)]
    families = [step.family for step in current.steps if step.kind == "family"]
    return "with " + ",\n".join(expressions) + "\n" + values_select(families), parameters


def family_error(exc: duckdb.InvalidInputException, families: Iterable[str]) -> Exception:
    """A family's own ``error('metric_<family>: ...')`` (a measure that does not apply to these
    data, e.g. gdeval's ERR with a gain above 4: not a crash) as :class:`MeasureParamError`
    with that message; ``exc`` itself otherwise."""
    text = str(exc)
    marker = next((f"metric_{family}:" for family in families if f"metric_{family}:" in text), None)
    return exc if marker is None else MeasureParamError(text[text.index(marker):])


class DuckDBExecutor:
    """Executes a plan's steps on a DuckDB connection (pyeval.core.plan.Executor). Given the
    plan it executes (``planned``), each pass :func:`one_statement` makes is one statement,
    run at its last family step (its stage steps make no table); otherwise every stage is a
    temporary table and every family a statement. ``defined``: relations every pass statement
    defines (a plan :func:`statements_only` makes; ValueError otherwise)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, planned: Plan | None = None,
                 defined: DefinedRelations | None = None):
        if defined is not None and (planned is None or not statements_only(planned)):
            raise ValueError("relations defined in a pass statement need a plan whose every pass is one statement")
        self.con = con
        self.defined = defined
        #: the last family step of each pass made one statement -> the pass; its other steps
        self._passes: dict[Step, Pass] = {}
        self._inlined: set[Step] = set()
        self._staged: set[str] = set()  # the tables stage() made, which drop() drops
        for current in planned.passes if planned is not None else ():
            families = [step for step in current.steps if step.kind == "family"]
            if families and one_statement(current):
                self._passes[families[-1]] = current
                self._inlined.update(step for step in current.steps if step.kind in ("stage", "family"))

    def open_values(self) -> None:
        create_values(self.con)

    def profiles(self, step: Step) -> None:
        define_profiles(self.con, step)

    def macros(self, step: Step) -> None:
        self.con.execute(sqlfiles.read(step.model))

    def stage(self, step: Step) -> None:
        if step in self._inlined:
            return  # a common table expression of its pass's statement
        # relation names come from pyeval's own headers, never user input
        self.con.execute(f"create or replace temp table {step.produces} as\n" + sqlfiles.read(step.model),
                         dict(step.params))
        self._staged.add(step.produces)

    def components(self, step: Step, frame: pd.DataFrame) -> None:
        """Append a composite family's component values to the staged evaluation_components."""
        insert_rows(self.con, "evaluation_components", frame)

    def family(self, step: Step) -> None:
        current = self._passes.get(step)
        if current is not None:
            self._statement(current)
        elif step not in self._inlined:
            self._family(step)

    def _family(self, step: Step) -> None:
        """One family's statement over the staged tables."""
        family = step.family
        _create_requested(self.con, family, list(step.measures))
        try:
            self.con.execute(
                f"insert into {VALUES_TABLE} by name select * from (\n" + step.text + "\n)"
            )
        except duckdb.InvalidInputException as exc:
            raise family_error(exc, [family]) from None
        finally:
            self.con.execute("drop table if exists requested_measures")

    def _statement(self, current: Pass) -> None:
        """Every family of ``current`` in one statement (:func:`pass_statement`)."""
        steps = [step for step in current.steps if step.kind == "family"]
        made: list[str] = []
        try:
            for step in steps:
                made.append(requested_table(step.family))
                _create_requested(self.con, step.family, list(step.measures), made[-1])
            sql, parameters = pass_statement(current, self.defined)
            self.con.execute(f"insert into {VALUES_TABLE} by name\n" + sql, parameters)
        except duckdb.InvalidInputException as exc:
            raise family_error(exc, [step.family for step in steps]) from None
        finally:
            drop_tables(self.con, made)

    def driver(self, step: Step, request: EvaluationRequest) -> None:
        """A family computed in Python (family_drivers.register_driver), given its measures and the
        pass's request."""
        function = registry.driver(step.family)
        insert_frame(self.con, function(self.con, list(step.measures), request))

    def drop(self, tables: list[str]) -> None:
        drop_tables(self.con, [table for table in tables if table in self._staged])
        self._staged.difference_update(tables)

    def take_values(self) -> pd.DataFrame:
        try:
            return self.con.execute(f"select * from {VALUES_TABLE}").df()
        finally:
            self.con.execute(f"drop table {VALUES_TABLE}")

    def put_values(self, frame: pd.DataFrame) -> None:
        values_from_frame(self.con, frame)


def create_declared(con, relation: str, rows: Sequence[tuple] = (), table: str | None = None) -> None:
    """The temporary table ``relation`` (or ``table``, of its columns) as its declaration
    (sql/evaluation/<relation>.sql, a typed empty select) makes it, holding ``rows`` (bound as
    parameters)."""
    model = sqlfiles.model(f"evaluation/{relation}.sql")
    # names come from pyeval's own declarations and prefixes, never user input
    con.execute(f"create or replace temp table {table or relation} as\n" + sqlfiles.read(model.path))
    insert_bound_rows(con, table or relation, rows)


def create_values(con) -> None:
    """An empty ``evaluation_values``."""
    con.execute(f"create or replace temp table {VALUES_TABLE} as\n" + sqlfiles.read("evaluation/evaluation_values.sql"))


def values_from_frame(con, frame: pd.DataFrame) -> None:
    """``evaluation_values`` holding a long form computed outside :func:`compute_into` (the
    diversity staging; trec_eval's judgment groups and preferences)."""
    create_values(con)
    insert_frame(con, frame)


def insert_frame(con, frame: pd.DataFrame) -> None:
    """Append a long form (``value_text`` optional) to evaluation_values."""
    insert_rows(con, VALUES_TABLE, frame)


def insert_rows(con, table: str, frame: pd.DataFrame) -> None:
    """Append the rows of ``frame`` to ``table`` (a relation declared in sql/evaluation/), the
    columns by name; ``frame`` is read through DuckDB's replacement scan under a local name."""
    columns = [name for name in sqlfiles.model(f"evaluation/{table}.sql").columns if name in frame.columns]
    rows = frame  # noqa: F841  (read by name by the statement below: DuckDB's replacement scan)
    # table and column names are pyeval's own declarations, never user input
    con.execute(f"insert into {table} by name select {', '.join(columns)} from rows")


def in_request_order(frame: pd.DataFrame, measures: Sequence[Measure]) -> pd.DataFrame:
    """Per-topic values sorted by run, topic, then the order the measures were asked in."""
    order = {str(m): i for i, m in enumerate(measures)}
    frame = frame.sort_values(
        ["run_id", "topic_id", "measure"], key=lambda s: s.map(order) if s.name == "measure" else s
    )
    return frame.reset_index(drop=True)
