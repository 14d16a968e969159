"""The plan of an evaluation: which SQL models run, in which order, with which parameters.

:func:`plan` is pure (no connection, no data): from an :class:`~pyeval.core.request.EvaluationRequest`
and the headers of sql/ (pyeval.core.sqlfiles) it lists every step — the evaluation macros, each
stage (a file of sql/evaluation/ or sql/drivers/ and the parameters its header declares, bound
from the request; the lists a Python family driver reads are stages too, DRIVER_STAGING), the
gain profiles the measures name (``profiles``: checked, an inline one defined, once before any
stage), the rows a composite family is given, each metric family
(sql/metrics/metric_<family>.sql with its ``requested_measures``) and each Python family driver
(family_drivers.register_driver). An engine *executes* a plan: :func:`execute` walks it and calls the
engine's :class:`Executor` for each step (DuckDB: pyeval.core.stages.DuckDBExecutor; Spark:
pyeval.engines.spark.SparkExecutor), so every engine stages exactly the same models with the
same parameters.

A plan is a list of *passes*. A pass is one staging of the ranked lists (ad hoc, or one of the
diversity stagings: global, DIN, per-intent, see pyeval/diversity) and the families computed on
it. An ad hoc campaign's plan has one pass (two when some measures set their own
``judged_only``). A diversity campaign's plan has a pass per staging the measures read, then a
pass per depth of composite measures (I-rec, IA, D#, P+Q, ...), whose components are values of
earlier passes; its ``outputs`` say which pass holds each requested measure.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pyeval.core import compile, sqlfiles
from pyeval.measures import Measure, registry
from pyeval.measures.common import BUILTIN_GAIN_PROFILES
from pyeval.core.request import NO_DEPTH_LIMIT, EvaluationRequest

if TYPE_CHECKING:  # pandas is imported where a frame is made: `pyeval trec_eval` needs none
    import pandas as pd

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
#: The preferences family's judgments from the campaign's qrels (trec_eval's qrels as prefs).
PREFERENCE_STAGING = ("evaluation_preferences", "preference_closure")
#: The ranked-and-cut stage and the lists the Python family drivers read (sql/drivers/), staged
#: by the plan before a driver step (with the ad hoc stages: a relation both read is made once).
DRIVER_STAGING = ("evaluation_entries", "drivers/driver_topics", "drivers/driver_lists", "drivers/driver_entries")
#: What the measures of generated answers read (sql/metrics/metric_nuggets.sql): the scored (run,
#: topic) pairs, the assignment set's labels, the answers' sentences and citations with their support.
NUGGET_STAGING = ("evaluation_nugget_pairs", "evaluation_nugget_labels", "evaluation_nugget_sentences",
                  "evaluation_nugget_citations")

#: joins topic and intent into the topic_id of a per-intent list
SEPARATOR = "\x1f"
ADHOC, GLOBAL, DIN, PER_INTENT, INTENTS = "adhoc", "global", "din", "per_intent", "intents"
#: The staging of the measures of generated answers (MeasureDef.staging): NUGGET_STAGING, in the
#: ad hoc pass (they read no ranked list and no qrels)
ANSWERS = "answers"
#: The stagings the ad hoc pass makes
ADHOC_PASS = (ADHOC, ANSWERS)
#: What the global and per-intent stagings share with the ad hoc one: files of sql/evaluation/
_SHARED_STAGES = ("evaluation_entries", "evaluation_pairs", "topic_judgments", "evaluation_ideal_gains",
                  "evaluation_relevant_ranks", "evaluation_intents", "evaluation_intent_ranks",
                  "evaluation_components")
#: The global staging (D- and DIN-measures, composites): every judged document's gain is its
#: global gain, coded as levels.
GLOBAL_STAGING = ("diversity_document_gains", "diversity_ranked_gains", "diversity_gain_codes",
                  "diversity_levels", "diversity_ranks", "evaluation_lists", "diversity_gains",
                  "diversity_gain_maxima", *_SHARED_STAGES)
#: The per-intent staging: each (topic, intent) a list of its own, on the intent's levels.
PER_INTENT_STAGING = ("per_intent_judgments", "per_intent_levels", "per_intent_ranks", "per_intent_lists",
                      "per_intent_gains", "per_intent_gain_maxima", *_SHARED_STAGES)

MACROS = "evaluation/macros.sql"


@dataclass(frozen=True)
class Staging:
    """One staging of the ranked lists. kind: ``adhoc``, ``global`` (D-measures, composites),
    ``din`` or ``per_intent``; profile, probs: the gain profile and probability variant of the
    global gains; variants: the probability variants composite families read."""

    kind: str = ADHOC
    profile: str = "linear"
    probs: str = "given"
    variants: tuple[str, ...] = ("given",)


@dataclass(frozen=True, eq=False)
class Step:
    """One step of a plan.

    kind: ``profiles`` (the gain profiles the measures name: each checked, an inline one
    defined; a step of the plan's ``setup``, before any pass), ``macros`` (the evaluation macros),
    ``stage`` (a staged relation), ``components`` (a composite family's component values
    appended to ``evaluation_components``), ``family`` (a metric family's SQL) or ``driver`` (a
    Python family, reading the lists staged before it); model: the file of sql/ it runs
    (``driver``: the family; ``profiles``: the table written); produces: the relation made
    (``family``: ``evaluation_values``); params: the parameters bound (exactly those the header
    declares; ``profiles``: ``campaign_id`` and the ``profiles`` named); measures: a family's
    measures; sources: a ``components`` step's ``(measure, role, pass, part)`` rows.
    """

    kind: str
    model: str
    produces: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)
    measures: tuple[Measure, ...] = ()
    sources: tuple[tuple[str, str, int, str], ...] = ()
    sql: str | None = None

    @property
    def family(self) -> str:
        return self.measures[0].family

    @property
    def text(self) -> str:
        """The SQL the step runs: a family's compiled for its measures (pyeval.core.compile),
        a stage's or the macros' file as it is."""
        return self.sql if self.sql is not None else sqlfiles.read(self.model)


@dataclass(frozen=True, eq=False)
class Pass:
    """One staging and the families computed on it (``request``: its measures and settings)."""

    staging: Staging
    request: EvaluationRequest
    steps: tuple[Step, ...]

    @property
    def staged(self) -> list[str]:
        """The relations this pass stages (dropped after it)."""
        return [step.produces for step in self.steps if step.kind == "stage"]


@dataclass(frozen=True, eq=False)
class Plan:
    """An evaluation's passes; ``outputs`` (diversity plans): each requested measure and the
    pass whose values it takes (empty: every pass's values are the evaluation's); ``setup``:
    the steps made once before any pass (the gain profiles, :func:`profiles_step`)."""

    request: EvaluationRequest
    passes: tuple[Pass, ...]
    outputs: tuple[tuple[str, int], ...] = ()
    setup: tuple[Step, ...] = ()

    @property
    def steps(self) -> list[Step]:
        """The setup's steps, then every pass's."""
        return [*self.setup, *(step for p in self.passes for step in p.steps)]

    def families(self) -> list[str]:
        return list(dict.fromkeys(step.family for step in self.steps if step.kind in ("family", "driver")))


def _model(file: str) -> sqlfiles.Model:
    return sqlfiles.model(f"{file}.sql" if "/" in file else f"evaluation/{file}.sql")


def staged_tables(files: Iterable[str]) -> list[str]:
    """The relations the staging ``files`` (names under sql/evaluation/, or paths under sql/
    without .sql) produce."""
    return [_model(file).produces for file in files]


def stages_read(files: Iterable[str], staging: Iterable[str] = ADHOC_STAGING) -> set[str]:
    """The relations of ``staging`` that the SQL files ``files`` (paths under sql/) read."""
    tables = set(staged_tables(staging))
    return {name for file in files for name in sqlfiles.model(file).reads if name in tables}


def family_sql(family: str, measures: Sequence[Measure]) -> str:
    """The SQL of ``family`` compiled for ``measures`` (its kinds only: pyeval.core.compile)."""
    return compile.family(family, compile.kinds_of(measures))


def stages_read_by(measures: Sequence[Measure], staging: Iterable[str]) -> set[str]:
    """The relations of ``staging`` that the compiled SQL families of ``measures`` read (a
    Python family's driver reads DRIVER_STAGING's lists)."""
    tables = set(staged_tables(staging))
    families = dict.fromkeys(m.family for m in measures if registry.driver(m.family) is None)
    return {name for family in families
            for name in compile.reads(family_sql(family, [m for m in measures if m.family == family]))
            if name in tables}


def warehouse_reads(planned: Plan) -> set[str] | None:
    """The warehouse's tables and views the plan ``planned`` reads (its stages' headers, its
    compiled families, the gain profiles its setup checks); None when a Python family's driver
    computes a measure (it reads what it reads)."""
    names: set[str] = set()
    for step in planned.steps:
        if step.kind == "stage":
            names |= set(sqlfiles.model(step.model).reads)
        elif step.kind == "family":
            names |= compile.reads(step.text)
        elif step.kind == "profiles":
            names.add("gain_profiles")
        elif step.kind == "driver":
            return None
    return names & ({path.stem for path in sqlfiles.schema_files()} | set(sqlfiles.VIEW_ORDER))


def stage_steps(files: Iterable[str], parameters: Mapping[str, object], needed: set[str] | None = None
                ) -> list[Step]:
    """The evaluation macros, then a ``stage`` step for each of ``files`` in the order their
    headers' ``reads`` require, each with the parameters it declares from ``parameters``. With
    ``needed``, only those relations and the stages they are built from."""
    models = sqlfiles.creation_order(_model(file) for file in files)
    if needed is not None:
        wanted = set(needed)
        for model in reversed(models):
            if model.produces in wanted:
                wanted |= set(model.reads)
        models = [model for model in models if model.produces in wanted]
    return [Step("macros", MACROS)] + [Step("stage", m.path, m.produces, m.bind(parameters)) for m in models]


def _family_steps(measures: Sequence[Measure]) -> list[Step]:
    steps = []
    for family in dict.fromkeys(m.family for m in measures):
        chosen = tuple(m for m in measures if m.family == family)
        if registry.driver(family) is not None:
            steps.append(Step("driver", family, "evaluation_values", measures=chosen))
        else:
            steps.append(Step("family", f"metrics/metric_{family}.sql", "evaluation_values", measures=chosen,
                              sql=family_sql(family, chosen)))
    return steps


def _adhoc_pass(request: EvaluationRequest) -> Pass:
    """The ad hoc staging: only the stages the requested SQL families read (of the ranked lists,
    ADHOC_STAGING, and of generated answers, NUGGET_STAGING), and the lists the Python families'
    drivers read (DRIVER_STAGING; a stage both read is made once)."""
    parameters = request.stage_parameters()
    families = list(dict.fromkeys(m.family for m in request.measures))
    needed = stages_read_by(request.measures, ADHOC_STAGING + NUGGET_STAGING)
    if any(registry.driver(family) is not None for family in families):
        needed |= set(staged_tables(DRIVER_STAGING))
    steps: list[Step] = []
    if needed:
        steps += stage_steps(ADHOC_STAGING + DRIVER_STAGING + NUGGET_STAGING, parameters, needed)
    if "preferences" in families and request.preferences == "qrels":
        steps += stage_steps(PREFERENCE_STAGING, parameters)[1:]  # after the macros of the stages above
    return Pass(Staging(ADHOC), request, tuple(steps + _family_steps(request.measures)))


def _diversity_pass(staging: Staging, request: EvaluationRequest, sources=()) -> Pass:
    """A diversity staging (global, DIN or per-intent) with the stages its families read, and
    those families; ``sources``: a composite pass's component values (evaluation_components)."""
    parameters = request.stage_parameters()
    if staging.kind == PER_INTENT:
        files = PER_INTENT_STAGING
        parameters["separator"] = SEPARATOR
    else:
        files = GLOBAL_STAGING
        parameters.update(probs=staging.probs, profile=staging.profile, din=staging.kind == DIN,
                          profiles=[staging.profile])
    parameters["variants"] = list(staging.variants)
    parameters["negative_is_judged"] = True  # every document of the qrels is judged (NTCIREVAL)
    needed = stages_read_by(request.measures, files)  # a composite's pass: its components and pairs
    if sources:
        needed.add("evaluation_components")
    steps = stage_steps(files, parameters, needed)
    if sources:
        steps.append(Step("components", "evaluation/evaluation_components.sql", "evaluation_components",
                          sources=tuple(sources)))
    return Pass(staging, request, tuple(steps + _family_steps(request.measures)))


def _staging_of(kind: str, measure: Measure, variants: tuple[str, ...]) -> Staging:
    if kind in (GLOBAL, DIN):
        return Staging(kind, measure["gain"] if measure.has("gain") else "linear", measure["probs"])
    if kind == PER_INTENT:
        return Staging(PER_INTENT)
    return Staging(GLOBAL, variants=variants)  # INTENTS: composites and effective precision


def probability_variants(measures: Sequence[Measure]) -> tuple[str, ...]:
    """The intent probability variants ``measures`` (and their components) read."""
    wanted = {"given"}
    pending = list(measures)
    while pending:
        measure = pending.pop()
        if measure.has("probs"):
            wanted.add(measure["probs"])
        if measure.definition.components is not None:
            pending.extend(part for _, _, part in measure.definition.components(measure))
    return tuple(sorted(wanted))


def is_diversity(request: EvaluationRequest) -> bool:
    """Whether some measure reads a diversity staging (D-, DIN-, IA-measures, I-rec, ...)."""
    return any(m.definition.staging not in ADHOC_PASS for m in request.measures)


def _diversity_plan(request: EvaluationRequest) -> Plan:
    """Diversity measures: a pass per staging, then one per depth of composites; the request's ad
    hoc measures in a pass of their own (an ad hoc campaign's, or a driver's: on a diversity campaign
    pyeval.core.evaluation.campaign_runs refuses the others)."""
    variants = probability_variants(request.measures)
    adhoc: dict[str, Measure] = {}
    leaves: dict[Staging, dict[str, Measure]] = defaultdict(dict)
    composites: dict[int, dict[str, Measure]] = defaultdict(dict)

    def visit(measure: Measure, kind: str) -> int:
        definition = measure.definition
        if definition.components is not None:
            depth = 1 + max(visit(part, part_kind) for _, part_kind, part in definition.components(measure))
            composites[depth][str(measure)] = measure
            return depth
        if kind in ADHOC_PASS:
            adhoc[str(measure)] = measure
        else:
            leaves[_staging_of(kind, measure, variants)][str(measure)] = measure
        return 0

    for measure in request.measures:
        visit(measure, measure.definition.staging)
    passes: list[Pass] = []
    located: dict[tuple[Staging, str], int] = {}
    if adhoc:
        passes.append(_adhoc_pass(request.replace(measures=tuple(adhoc.values()))))
        located.update({(Staging(ADHOC), name): 0 for name in adhoc})
    for staging, chosen in leaves.items():
        located.update({(staging, name): len(passes) for name in chosen})
        passes.append(_diversity_pass(staging, request.replace(measures=tuple(chosen.values()))))
    base = Staging(GLOBAL, variants=variants)
    for depth in sorted(composites):
        chosen = composites[depth]
        sources = [(str(measure), role, located[_staging_of(kind, part, variants), str(part)], str(part))
                   for measure in chosen.values() for role, kind, part in measure.definition.components(measure)]
        located.update({(base, name): len(passes) for name in chosen})
        passes.append(_diversity_pass(base, request.replace(measures=tuple(chosen.values())), sources))
    outputs = []
    for measure in request.measures:
        definition = measure.definition
        kind = definition.staging if definition.components is None else INTENTS
        key = (Staging(ADHOC), str(measure)) if kind in ADHOC_PASS else (_staging_of(kind, measure, variants), str(measure))
        outputs.append((str(measure), located[key]))
    return Plan(request, tuple(passes), tuple(outputs))


def profiles_step(campaign_id: str, measures: Iterable[Measure]) -> Step | None:
    """The step that checks every gain profile ``measures`` name other than the built-in ones
    (stored for ``campaign_id``, or inline: defined under its gains' text, see
    pyeval.core.stages.define_profiles); None when they name none."""
    named = sorted({m["gain"] for m in measures if m.has("gain")} - set(BUILTIN_GAIN_PROFILES))
    if not named:
        return None
    return Step("profiles", "gain_profiles", "gain_profiles", {"campaign_id": campaign_id, "profiles": named})


def plan(request: EvaluationRequest) -> Plan:
    """The steps that compute ``request``'s measures (pure: reads only the SQL headers and the
    measure registry): :func:`_planned`'s passes, and as their ``setup`` the gain profiles the
    measures name (:func:`profiles_step`: made once, before any pass)."""
    planned = _planned(request)
    step = profiles_step(request.campaign_id, request.measures)
    if step is None:
        return planned
    return Plan(planned.request, planned.passes, planned.outputs, (step,))


def _planned(request: EvaluationRequest) -> Plan:
    """The passes that compute ``request``'s measures. A request without one ordering is a plan per ordering its measures
    declare (pyeval.core.request.orderings); measures with their own ``judged_only=True`` (when the
    request's is False) are a plan of their own, staged with the unjudged documents dropped;
    the parts' values are joined."""
    if request.ordering is None:
        used = request.orderings()
        return _joined(request, [_planned(request.replace(measures=tuple(m for m in request.measures if str(m) in names),
                                                      ordering=chosen))
                                 for chosen, names in used.items()])
    own = tuple(m for m in request.measures if m.has("judged_only") and m["judged_only"])
    if own and not request.judged_only:
        parts = [_planned(request.replace(measures=own, judged_only=True))]
        rest = tuple(m for m in request.measures if m not in own)
        if rest:
            parts.append(_planned(request.replace(measures=rest)))
        return _joined(request, parts)
    if is_diversity(request):
        return _diversity_plan(request)
    return Plan(request, (_adhoc_pass(request),))


def _joined(request: EvaluationRequest, parts: Sequence[Plan]) -> Plan:
    """One plan of ``parts`` (plans of parts of ``request``'s measures), their passes in order."""
    if len(parts) == 1:
        return Plan(request, parts[0].passes, parts[0].outputs)
    if not any(part.outputs for part in parts):
        return Plan(request, tuple(p for part in parts for p in part.passes))
    passes: list[Pass] = []
    outputs: list[tuple[str, int]] = []
    for part in parts:
        offset = len(passes)
        if part.outputs:
            outputs += [(name, index + offset) for name, index in part.outputs]
        else:
            outputs += [(str(m), offset + i) for i, p in enumerate(part.passes) for m in p.request.measures]
        passes += [_shift(p, offset) for p in part.passes]
    return Plan(request, tuple(passes), tuple(outputs))


def _shift(p: Pass, offset: int) -> Pass:
    if not offset:
        return p
    steps = tuple(Step(s.kind, s.model, s.produces, s.params, s.measures,
                       tuple((m, role, index + offset, part) for m, role, index, part in s.sources))
                  if s.sources else s for s in p.steps)
    return Pass(p.staging, p.request, steps)


class Executor(Protocol):
    """What an engine does for each kind of step (:func:`execute` calls these in plan order)."""

    def profiles(self, step: Step) -> None:
        """Check and define the gain profiles named (pyeval.core.stages.define_profiles)."""

    def open_values(self) -> None:
        """Start an empty ``evaluation_values``."""

    def macros(self, step: Step) -> None: ...

    def stage(self, step: Step) -> None: ...

    def components(self, step: Step, frame: pd.DataFrame) -> None: ...

    def family(self, step: Step) -> None: ...

    def driver(self, step: Step, request: EvaluationRequest) -> None: ...

    def drop(self, tables: list[str]) -> None: ...

    def take_values(self) -> pd.DataFrame:
        """The values computed since :meth:`open_values` (and forget them)."""

    def put_values(self, frame: pd.DataFrame) -> None:
        """The evaluation's values are ``frame``."""


def _shown(name: str, value: object) -> str:
    """A bound parameter as :func:`describe` prints it: its value, or what an unset one means."""
    if name == "runs" and value == []:
        return "[] (resolved when it runs: every run)"
    if name == "all_runs" and value is False:
        return "False (True when the runs are every run of the campaign: no filter by run)"
    if name == "judgment_set" and value is None:
        return "None (resolved when it runs: the default set)"
    if name == "max_depth" and value == NO_DEPTH_LIMIT:
        return f"{value} (no depth limit)"
    return repr(value)


#: The kinds of step a pass made one statement holds (:func:`one_statement`)
_STATEMENT_STEPS = frozenset({"macros", "stage", "family"})


def one_statement(current: Pass) -> bool:
    """Whether the DuckDB executor runs ``current`` as one statement
    (pyeval.core.stages.pass_statement): its steps are the macros, stages and
    SQL families only (no Python driver or component rows, which read staged tables), and its
    stages bind each parameter name to one value."""
    if not {step.kind for step in current.steps} <= _STATEMENT_STEPS:
        return False
    bound: dict[str, object] = {}
    for step in current.steps:
        for name, value in step.params.items():
            if bound.setdefault(name, value) != value:
                return False
    return True


def describe(plan: Plan, sql: bool = False) -> str:
    """What ``plan`` runs, step by step, as text (``pyeval explain``): each pass's staging and
    measures, then each step: the file of sql/ it runs and the relation it makes, the
    parameters it binds (names and values: bound, never spliced into the SQL), a family's
    measures; a Python family's driver (the lists it reads are stages before it).
    ``sql``: each step's SQL text too, as the DuckDB engine runs it (a stage's file as it is, a
    family's statement compiled for its kinds)."""
    lines: list[str] = []
    counted = [0, 0]  # SQL statements, lines of SQL
    joined = False  # the current pass runs as one statement (one_statement)

    def show(step: Step) -> None:
        if step.kind == "stage":
            lines.append(f"  stage      sql/{step.model} -> {step.produces}")
        elif step.kind == "family":
            kinds = ", ".join(sorted(compile.kinds_of(step.measures)))
            lines.append(f"  family     sql/{step.model} compiled for {kinds}: " + ", ".join(str(m) for m in step.measures))
        elif step.kind == "profiles":
            lines.append(f"  profiles   {step.produces}: checked, an inline one defined")
        elif step.kind == "driver":
            lines.append(f"  driver     {step.model} (Python): " + ", ".join(str(m) for m in step.measures))
        elif step.kind == "components":
            lines.append("  components " + ", ".join(f"{measure} <- {part} ({role}, pass {source + 1})"
                                                    for measure, role, source, part in step.sources))
        else:
            lines.append(f"  {step.kind:10s} sql/{step.model}")
        if step.params:
            lines.append("             params: " + ", ".join(f"${name} = {_shown(name, value)}"
                                                           for name, value in step.params.items()))
        if step.kind in ("stage", "family", "macros"):
            text = step.text
            counted[0] += 1 if step.kind == "macros" or not joined else 0
            counted[1] += text.count("\n") + 1
            if sql:
                lines.extend("             " + line for line in text.rstrip("\n").splitlines())

    for step in plan.setup:
        show(step)
    for number, current in enumerate(plan.passes, 1):
        staging = current.staging
        what = staging.kind if staging.kind == ADHOC else (
            f"{staging.kind} (profile {staging.profile}, probs {staging.probs})")
        lines.append(f"pass {number}: {what} staging, ordering {', '.join(current.request.orderings())}: "
                     + ", ".join(str(m) for m in current.request.measures))
        joined = one_statement(current) and any(step.kind == "family" for step in current.steps)
        for step in current.steps:
            show(step)
        if joined:  # the DuckDB executor: the stages common table expressions of one insert
            counted[0] += 1
            lines.append("  (on DuckDB its stages and families run as one statement, the stages its common table "
                         "expressions)")
    lines.append(f"{counted[0]} SQL statements, {counted[1]} lines of SQL")
    return "\n".join(lines)


def execute(plan: Plan, executor: Executor) -> None:
    """Run ``plan`` on ``executor``: afterwards the executor's ``evaluation_values`` hold every
    requested measure's per-topic values (unordered). A plan without outputs appends every
    pass's values; a diversity plan keeps each pass's values apart (pandas) for the composite
    passes and the outputs."""
    collect = bool(plan.outputs)
    results: dict[tuple[int, str], pd.DataFrame] = {}
    for step in plan.setup:
        if step.kind != "profiles":  # pragma: no cover - the plan's setup holds profiles only
            raise ValueError(f"unknown setup step kind {step.kind!r}")
        executor.profiles(step)
    if not collect:
        executor.open_values()
    for index, current in enumerate(plan.passes):
        if collect:
            executor.open_values()
        staged: list[str] = []
        try:
            for step in current.steps:
                if step.kind == "macros":
                    executor.macros(step)
                elif step.kind == "stage":
                    staged.append(step.produces)
                    executor.stage(step)
                elif step.kind == "components":
                    executor.components(step, _components(step, results))
                elif step.kind == "family":
                    executor.family(step)
                elif step.kind == "driver":
                    executor.driver(step, current.request)
                else:  # pragma: no cover - the plan makes only the kinds above
                    raise ValueError(f"unknown step kind {step.kind!r}")
        finally:
            executor.drop(staged)
        if collect:
            frame = executor.take_values()
            if current.staging.kind == PER_INTENT:
                parts = frame["topic_id"].str.split(SEPARATOR, n=1, expand=True)
                frame = frame.assign(topic_id=parts[0], intent_id=parts[1])
            for name, part in frame.groupby("measure", sort=False):
                results[index, name] = part
    if collect:
        import pandas as pd

        executor.put_values(pd.concat(
            [results[index, name].drop(columns=["intent_id"], errors="ignore") for name, index in plan.outputs
             if (index, name) in results],
            ignore_index=True,
        ))


def _components(step: Step, results: Mapping[tuple[int, str], pd.DataFrame]) -> pd.DataFrame:
    """The rows (measure, role, run_id, topic_id, intent_id, value) of a ``components`` step."""
    import pandas as pd

    rows = []
    for measure, role, index, part in step.sources:
        frame = results[index, part]
        rows.append(pd.DataFrame({
            "measure": measure, "role": role, "run_id": frame["run_id"].to_numpy(),
            "topic_id": frame["topic_id"].to_numpy(),
            "intent_id": frame["intent_id"].to_numpy() if "intent_id" in frame else "",
            "value": frame["value"].astype(float).to_numpy(),
        }))
    return pd.concat(rows, ignore_index=True)


if __name__ == "__main__":  # docs/sql-models.md: the SQL models, with the ad hoc staging planned here
    print(sqlfiles.models_page(ADHOC_STAGING), end="")
