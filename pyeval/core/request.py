"""One evaluation request: everything an evaluation depends on, validated once.

An :class:`EvaluationRequest` is what every layer is given (the orchestrator
:func:`pyeval.core.evaluation.evaluate`, the plan :func:`pyeval.core.plan.plan`, the stagings, the Python
family drivers, the Spark engine): no layer takes the settings as loose keywords. It is frozen,
so a layer that needs another request (a measure's own ``judged_only`` computed apart, a
diversity campaign's ad hoc part) derives one with :meth:`EvaluationRequest.replace`, which
validates again. Its :meth:`~EvaluationRequest.stored_settings` are the JSON an evaluation is
stored with (``evaluations.settings``), the same keys as before the request existed, so stored
evaluations stay comparable.

Importing this module imports no pandas, numpy or scipy, nor the measures' registry (imported
when a request is made): the command line builds its options from the fields.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyeval.errors import PyevalError, require_choice, with_command_line
from pyeval.vocabulary import ENGINES, ORDERINGS, PREFERENCE_SOURCES, TOPIC_POLICIES, names

if TYPE_CHECKING:  # the measures' registry is imported when a request is made, not with this module
    from pyeval.measures import Measure

#: The depth bound a staging file is given for "no depth limit" (``$max_depth``).
NO_DEPTH_LIMIT = 2**62


def parse_requested(measures: Iterable[str | Measure]) -> list[Measure]:
    """The measures asked for (names or Measure values), parsed, without repeats, in order;
    PyevalError when there are none."""
    from pyeval.measures import Measure, parse_measures

    if isinstance(measures, (str, Measure)):  # evaluate(con, c, "AP"): one measure, not its letters
        measures = [measures]
    parsed = [m for item in measures for m in ([item] if isinstance(item, Measure) else parse_measures(item))]
    if not parsed:
        raise with_command_line(PyevalError("no measure requested (measures=['AP', 'nDCG@10'], say)"),
                                "no measure requested (e.g. -m AP -m nDCG@10)")
    return list(dict.fromkeys(parsed))


def _with_default(measures: Iterable[Measure], param: str, default, value: str) -> list[Measure]:
    from pyeval.measures import make

    chosen = []
    for measure in measures:
        params = dict(measure.values)
        if param in params and params[param] == default(measure):
            params[param] = value
            measure = make(measure.definition, **params)
        chosen.append(measure)
    return list(dict.fromkeys(chosen))


def with_default_gain(measures: Iterable[str | Measure], profile: str) -> list[Measure]:
    """Give ``gain=profile`` to every measure that has a gain parameter left at its default."""
    return _with_default(parse_requested(measures), "gain", lambda m: m.definition.param("gain").default, profile)


def with_default_probs(measures: Iterable[str | Measure], variant: str) -> list[Measure]:
    """Give ``probs=variant`` to every measure that has a probs parameter left at its declared
    default (``ndeval`` for ndeval's names, ``given`` for the others)."""
    return _with_default(parse_requested(measures), "probs", lambda m: m.definition.param("probs").default, variant)


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


def _setting(default: object, help: str, *, option: str | None = "", kind: str = "value",
             choices: tuple | None = None, metavar: str | None = None, required: bool = False,
             default_set: bool = False) -> Any:
    """A field of :class:`EvaluationRequest` that a caller sets, with what the command line
    makes of it (pyeval.cli.evaluating.request_options; pyeval/core imports no click):
    ``help``; ``option``: its flags (``""``: ``--`` and the field's name with dashes; None: not
    an option); ``kind``: ``value``, ``flag``, ``multiple`` or ``depth`` (a positive count);
    ``choices``: a vocabulary of pyeval.vocabulary; ``default_set``: the help says that the
    default is the campaign's default judgment set. ``default`` dataclasses.MISSING: none."""
    return dataclasses.field(default=default, metadata={
        "help": help, "option": option, "kind": kind, "choices": choices, "metavar": metavar,
        "required": required, "default_set": default_set})


@dataclass(frozen=True)
class EvaluationRequest:
    """Everything one evaluation depends on.

    campaign_id: the campaign; measures: parsed, without repeats, in the order asked;
    runs: the runs (None: every run of the campaign, resolved by the orchestrator against the
    warehouse); ordering: one ordering for every measure, or None: each measure's declared one
    (:func:`orderings`; the plan makes a pass per ordering); max_depth, judged_only, topics: as :func:`pyeval.evaluate` documents
    them; gain_profile, probs: the gain profile and intent probability variant given to the
    measures that leave theirs at the default (already applied to ``measures``; None: none
    asked); engine: where the metric SQL runs (``duckdb`` or ``spark``; recorded in the stored
    settings when not DuckDB); preferences: where the ``preferences`` family's judgments come
    from (``qrels``: the campaign's qrels; ``file``: the caller staged a preference file as
    ``evaluation_preferences``, trec_eval -R prefs).

    judgment_set: the campaign's judgment set whose qrels and intents are read (``official`` by
    default; None: the campaign's default set, which :func:`pyeval.core.evaluation.resolve` reads
    from the warehouse; docs/judgments.md), stored with the evaluation, its scores and means.
    """

    campaign_id: str
    measures: tuple[Measure, ...] = _setting(
        dataclasses.MISSING, "Measure (AP, nDCG@10, P(rel=2)@5, or a trec_eval name such as map, P.5,10); repeatable.",
        option="-m/--measure", kind="multiple", required=True)
    runs: tuple[str, ...] | None = _setting(
        None, "Runs to evaluate (repeatable or comma-separated); default all.", kind="multiple")
    ordering: str | None = _setting(
        None, "trec: score desc, docno desc; trec-asc: score desc, docno asc; rank: the rank column; file: file "
              "order. Default: the order of the tool each measure is named after (trec; rank for ndeval's "
              "measures, file for NTCIREVAL's and cwl_eval's).", choices=ORDERINGS)
    max_depth: int | None = _setting(None, "Keep the first N documents of each list.", kind="depth")
    judged_only: bool = _setting(False, "Drop unjudged documents first (trec_eval -J).", kind="flag")
    topics: str = _setting("qrels", "qrels: every judged topic (missing ones score 0); intersection: the run's "
                                    "topics.", choices=TOPIC_POLICIES)
    gain_profile: str | None = _setting(
        None, "Gain profile for gain-based measures that do not name one (e.g. exp).", option="--gains")
    probs: str | None = _setting(None, "Intent probability variant for diversity measures that do not name one.")
    engine: str = _setting("duckdb", "spark: run the metric SQL on a local Spark session "
                                     "(pip install 'pyeval[spark]').", choices=ENGINES)
    preferences: str = _setting("qrels", "Where the preferences family's judgments come from (the trec_eval "
                                         "drop-in's -R prefs stages a file).", choices=PREFERENCE_SOURCES,
                                option=None)
    judgment_set: str | None = _setting(  # None: the campaign's default set, resolved against the warehouse
        "official", "The campaign's judgment set to evaluate under (pyeval judgments list).",
        option="--judgments", metavar="NAME", default_set=True)
    #: resolved, not a setting: ``runs`` are every run of the campaign (the orchestrator's
    #: :func:`~pyeval.core.evaluation.resolve` filled them in), so the stages need not filter
    #: the campaign's rows by run (``$all_runs``)
    every_run: bool = dataclasses.field(default=False, metadata={"resolved": True})

    def __post_init__(self) -> None:
        for name, allowed in (("ordering", ORDERINGS), ("topics", TOPIC_POLICIES), ("engine", ENGINES),
                              ("preferences", PREFERENCE_SOURCES)):
            value = getattr(self, name)
            if value is not None or name != "ordering":  # ordering None: each measure's own
                require_choice(name, value, names(allowed))
        if self.max_depth is not None and (isinstance(self.max_depth, bool) or self.max_depth < 1):
            raise PyevalError(f"max_depth must be a positive integer; got {self.max_depth}")
        from pyeval.measures import Measure

        if not all(isinstance(m, Measure) for m in self.measures):
            raise PyevalError("measures must be parsed Measure values (EvaluationRequest.build parses names)")
        if not isinstance(self.measures, tuple):
            object.__setattr__(self, "measures", tuple(self.measures))
        if self.runs is not None and not isinstance(self.runs, tuple):
            object.__setattr__(self, "runs", tuple(self.runs))
        if self.judgment_set is not None and (not isinstance(self.judgment_set, str) or not self.judgment_set):
            raise PyevalError(f"judgment_set must be a judgment set's name; got {self.judgment_set!r}")

    @classmethod
    def build(cls, campaign_id: str, measures: Iterable[str | Measure], **settings) -> EvaluationRequest:
        """A request from names as a user gives them (``settings``: any of :func:`setting_fields`):
        measures parsed (trec_eval aliases too), the default gain profile and probability
        variant applied, runs without repeats (an empty list: every run)."""
        unknown = sorted(set(settings) - {field.name for field in setting_fields()})
        if unknown:
            raise PyevalError(f"unknown setting {', '.join(unknown)} (the settings of an evaluation: "
                              f"{', '.join(field.name for field in setting_fields())})")
        parsed = parse_requested(measures)
        runs = settings.pop("runs", None)
        if isinstance(runs, str):  # runs="r1": one run, not its letters
            runs = [runs]
        gain_profile, probs = settings.pop("gain_profile", None), settings.pop("probs", None)
        if gain_profile:
            parsed = with_default_gain(parsed, gain_profile)
        if probs:
            parsed = with_default_probs(parsed, probs)
        return cls(campaign_id, tuple(parsed), runs=tuple(dict.fromkeys(runs)) if runs else None,
                   gain_profile=gain_profile or None, probs=probs or None, **settings)

    def replace(self, **changes) -> EvaluationRequest:
        """A copy with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)

    @property
    def numeric(self) -> tuple[Measure, ...]:
        """The measures whose values are numbers (stored); text measures (RelString) are not."""
        return tuple(m for m in self.measures if m.definition.storable)

    def orderings(self) -> dict[str, list[str]]:
        """The ordering each measure is ranked by (:func:`orderings`)."""
        return orderings(self.measures, self.ordering)

    def stored_settings(self) -> dict:
        """``evaluations.settings`` of this request (the keys stored evaluations have always had:
        measures, runs, max_depth, judged_only, topics, the ordering of each measure, the judgment
        set, and engine when not DuckDB)."""
        settings = {"measures": [str(m) for m in self.numeric], "runs": list(self.runs or ()),
                    "max_depth": self.max_depth, "judged_only": self.judged_only, "topics": self.topics,
                    "orderings": orderings(self.measures, self.ordering), "judgment_set": self.judgment_set}
        if self.engine != "duckdb":
            settings["engine"] = self.engine
        return settings

    def stage_parameters(self) -> dict[str, object]:
        """Every parameter a staging file may declare (sql/evaluation/ headers): the relevance
        thresholds (``rel``) and gain profiles (``gain``) the measures ask for, the depth cut
        (:data:`NO_DEPTH_LIMIT` for none), the probability variants read ('given'), whether a
        document with negative levels only counts as judged (not for trec_eval's reading:
        sql/evaluation/evaluation_entries.sql) and whether the runs are every run of the campaign
        (``all_runs``: the stages then read the campaign's rows without a filter by run)."""
        measures = self.measures
        ordering = self.ordering
        if ordering is None:  # each measure's own: one staging only when they all declare one
            used = self.orderings()
            if len(used) != 1:
                raise ValueError("stage_parameters of a request whose measures rank by several orderings "
                                 "(plan() gives each ordering a part of its own)")
            ordering = next(iter(used))
        return {
            "campaign_id": self.campaign_id,
            "judgment_set": self.judgment_set,
            "runs": list(self.runs or ()),
            "all_runs": self.every_run,
            "ordering": ordering,
            "max_depth": NO_DEPTH_LIMIT if self.max_depth is None else self.max_depth,
            "judged_only": self.judged_only,
            "negative_is_judged": False,
            "topic_policy": self.topics,
            "thresholds": sorted({1} | {m["rel"] for m in measures if m.has("rel") and m["rel"] is not None}),
            "profiles": sorted({m["gain"] for m in measures if m.has("gain")}),
            "variants": ["given"],
        }


def setting_fields() -> tuple[dataclasses.Field, ...]:
    """The fields of :class:`EvaluationRequest` a caller sets (every field but the campaign and
    the measures): the keywords of :func:`pyeval.evaluate` and :meth:`EvaluationRequest.build`;
    each one's metadata (:func:`_setting`) makes its option of ``pyeval evaluate``."""
    return tuple(field for field in dataclasses.fields(EvaluationRequest)
                 if field.name not in ("campaign_id", "measures") and not field.metadata.get("resolved"))
