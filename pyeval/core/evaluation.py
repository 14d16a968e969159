"""Evaluating runs: the one orchestrator every engine goes through.

:func:`evaluate` (and :func:`evaluate_summary`, what ``pyeval evaluate`` prints) turns its
arguments into one :class:`~pyeval.core.request.EvaluationRequest`, validated once, and
:func:`run` owns what holds on every engine: the runs resolved against the warehouse, the
inline gain profiles (``nDCG(gains={0:1,1:4})``: kept only with a stored evaluation that used
them, removed when the evaluation is not stored or fails), the values computed by the request's
engine (a pyeval.core.engine.Engine asked whether it supports each family: DuckDB executes the plan,
pyeval.core.stages; Spark, pyeval.engines.spark), their means and the stored evaluation. Every formula is in sql/metrics/
(one file per family) and sql/evaluation/ (staging and topic aggregation), or in a registered
Python driver (pyeval/drivers/).
"""
from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import archive, sqlfiles
from pyeval.core.engine import check_options, check_supported, engine
from pyeval.core.db import check_judgment_set, first_row, judgment_set_or_default, transaction, no_runs, unknown_campaign, use_internal_schema
from pyeval.display import Displayed
from pyeval.errors import DataIntegrityError, MeasureParamError, PyevalError, PyevalWarning, SingleIntentWarning
from pyeval.measures import Measure, parse_measures, registry
from pyeval.measures.common import is_inline_profile
from pyeval.core.plan import ADHOC_PASS, Plan, is_diversity, probability_variants
from pyeval.core.request import EvaluationRequest, ordering_column, orderings, parse_requested, setting_fields, with_default_gain, with_default_probs  # noqa: F401
from pyeval.core.stages import VALUES_TABLE, create_declared, create_values, stored_profiles, take_values, values_from_frame  # noqa: F401
from pyeval.core.stages import DefinedRelations
from pyeval.core.stages import compute_into as execute_into
from pyeval.vocabulary import names
from pyeval.vocabulary import ORDERINGS as _ORDERINGS
from pyeval.vocabulary import TOPIC_POLICIES as _TOPIC_POLICIES

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `pyeval trec_eval` needs none
    import pandas as pd

#: ranked_entries' ordering policies and the topic policies (pyeval.vocabulary, by name)
ORDERINGS = names(_ORDERINGS)
TOPIC_POLICIES = names(_TOPIC_POLICIES)

__all__ = ["ORDERINGS", "TOPIC_POLICIES", "Evaluation", "Summary", "EvaluationRequest", "evaluate",
           "evaluate_summary", "run", "compute", "compute_into"]

@dataclass(frozen=True, repr=False)
class Evaluation(Displayed):
    """The result of :func:`evaluate`; it prints (and shows in a notebook) the run x measure table
    ``pyeval evaluate`` prints, and ``df()`` is its means.

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

    def df(self) -> pd.DataFrame:
        return self.means

    def _display_frame(self) -> pd.DataFrame:
        return self.wide().reset_index()

    def _display_note(self) -> str:
        return f"stored as evaluation {self.evaluation_id}" if self.evaluation_id is not None else ""

    def _display_options(self) -> dict:
        return {"integer_columns": summed_measures(self.means["measure"].unique())}


def read_only(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con``'s database is attached read-only (pyeval.connect(..., read_only=True))."""
    row = first_row(con, "select readonly from duckdb_databases() where database_name = current_database()")
    return bool(row and row[0])


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


def compute(con: duckdb.DuckDBPyConnection, request: EvaluationRequest) -> pd.DataFrame:
    """Per-topic values of ``request`` on DuckDB (its runs as given): long form ``run_id,
    topic_id, measure, value, value_text`` (text measures' values in ``value_text``), sorted by
    run, topic and the order the measures were asked in. See :func:`compute_into`."""
    compute_into(con, request)
    return take_values(con, request.measures)


def compute_into(con: duckdb.DuckDBPyConnection, request: EvaluationRequest,
                 defined: DefinedRelations | None = None, planned: Plan | None = None) -> None:
    """Compute ``request`` on DuckDB into the temporary table ``evaluation_values`` (``run_id,
    topic_id, measure, value, value_text``; unordered): a diversity campaign checked first
    (:func:`check_campaign`), then the plan executed (pyeval.core.stages.compute_into, with
    ``defined`` and ``planned``)."""
    if is_diversity(request):
        check_campaign(con, request)
    execute_into(con, request, defined, planned)


def means_into(con: duckdb.DuckDBPyConnection, measures: Sequence[Measure], table: str,
               scores: str = "evaluation_scores", *, in_topic_order: bool = False) -> None:
    """The temporary table ``table`` (``run_id, measure, value, topics``) of
    :func:`means_select`."""
    text, parameters = means_select(measures, scores, in_topic_order=in_topic_order)
    # table is a name chosen by pyeval, never user input
    con.execute(f"create or replace temp table {table} as\n" + text, parameters)


def means_select(measures: Sequence[Measure], scores: str = "evaluation_scores", *,
                 in_topic_order: bool = False) -> tuple[str, dict[str, object]]:
    """The select of sql/evaluation/means.sql (``run_id, measure, value, topics``) over the
    per-topic values of the relation ``scores`` (columns ``run_id, topic_id, measure, value``;
    default the evaluation's, sql/evaluation/evaluation_scores.sql), and its parameters: each
    measure's aggregate (``requested_aggregates``) bound as lists; ``in_topic_order``: means as
    trec_eval adds them (a plain sum in topic order), for its drop-in; else a compensated sum
    (favg), so that a mean prints without float noise. A statement may read it as a common
    table expression."""
    # means.sql reads requested_aggregates (declared in sql/evaluation/requested_aggregates.sql)
    # and evaluation_scores (given as a CTE over scores); scores is a name chosen by pyeval
    relations = ["requested_aggregates as (select unnest($aggregated_measures::varchar[]) as measure, "
                 "unnest($aggregates::varchar[]) as aggregate)"]
    if scores != "evaluation_scores":
        relations.append(f"evaluation_scores as (select run_id, topic_id, measure, value from {scores})")
    text = "with " + ",\n".join(relations) + "\nselect * from (\n" + sqlfiles.read("evaluation/means.sql") + "\n)"
    aggregates = {str(m): m.definition.aggregate for m in measures}  # one row per measure, asked twice or not
    return text, {"aggregated_measures": list(aggregates), "aggregates": list(aggregates.values()),
                  "in_topic_order": in_topic_order}


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
            raise no_runs(campaign_id)
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
    store: bool = True,
    **settings,
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
    gain_profile
        The gain profile given to every measure that leaves its ``gain`` at the default
        (``exp``, a stored profile's name, or ``level=gain`` pairs; ``pyeval evaluate --gains``).
    probs
        The intent probability variant given to every diversity measure that leaves its
        ``probs`` at the default (``pyeval evaluate --probs``).
    store
        Record the evaluation and insert its per-topic values (the public view ``scores``).
    judgment_set
        The campaign's judgment set whose qrels and intents are read (default: the campaign's
        default set, ``official`` unless changed; docs/judgments.md); stored with every score and
        mean.
    engine
        ``duckdb`` (default) or ``spark`` (pyeval.engines.spark; ``engine_options``: its
        ``spark``, ``export`` and ``cores``).
    """
    engine_options = {key: settings.pop(key) for key in list(settings) if key not in _REQUEST_KEYWORDS}
    settings.setdefault("judgment_set", None)  # the campaign's default set
    request = EvaluationRequest.build(campaign_id, measures, **settings)
    return run(con, request, store=store, **engine_options)


def _keywords_signature(function: Callable, before: int, defaults: dict[str, object]) -> inspect.Signature:
    """``function``'s signature with the request's settings (pyeval.core.request.setting_fields)
    as keywords after its first ``before`` parameters, for help() and editors: the keywords are
    the fields, never spelled twice (``defaults``: where the function's differ)."""
    parameters = list(inspect.signature(function).parameters.values())
    settings = [inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY,
                                  default=defaults.get(field.name, field.default), annotation=field.type)
                for field in setting_fields()]
    rest = [p for p in parameters[before:] if p.kind != inspect.Parameter.VAR_KEYWORD]
    var_keyword = [p.replace(name="engine_options") for p in parameters if p.kind == inspect.Parameter.VAR_KEYWORD]
    return inspect.signature(function).replace(parameters=[*parameters[:before], *rest, *settings, *var_keyword])


def run(con: duckdb.DuckDBPyConnection, request: EvaluationRequest, *, store: bool = True,
        **engine_options) -> Evaluation:
    """:func:`evaluate` of a request (every engine): the per-topic values, texts and means,
    stored unless ``store`` is False."""
    request, evaluation_id = _evaluate_into(con, request, store, engine_options)
    return _evaluation_frames(con, request.measures, evaluation_id)


@dataclass(frozen=True)
class Summary:
    """The means of an evaluation as plain rows (:func:`evaluate_summary`; no pandas)."""

    measures: list[str]  # the numeric measures, in the order they were asked for
    rows: list[tuple]  # (run_id, one mean per measure, None where a run has none), by run_id
    evaluation_id: int | None


def evaluate_summary(
    con: duckdb.DuckDBPyConnection, campaign_id: str | EvaluationRequest,
    measures: Iterable[str | Measure] | None = None, *, store: bool = True, **settings
) -> Summary:
    """:func:`evaluate` (same keywords, or a request in place of the campaign and measures)
    returning only the means, run by measure, computed, stored and combined in SQL: what
    ``pyeval evaluate`` prints, without pandas."""
    if isinstance(campaign_id, EvaluationRequest):
        request, engine_options = campaign_id, settings
    else:
        engine_options = {k: settings.pop(k) for k in list(settings) if k not in _REQUEST_KEYWORDS}
        settings.setdefault("judgment_set", None)  # as evaluate: the campaign's default set
        request = EvaluationRequest.build(campaign_id, measures, **settings)
    request, evaluation_id = _evaluate_into(con, request, store, engine_options)
    try:
        names = [str(m) for m in request.numeric]
        means: dict[str, dict[str, float]] = {}
        for run_id, measure, value in con.execute(f"select run_id, measure, value from {MEANS_TABLE}").fetchall():
            means.setdefault(run_id, {})[measure] = value
    finally:
        _drop_results(con)
    rows = [(run_id, *(means[run_id].get(name) for name in names)) for run_id in sorted(means)]
    return Summary(names, rows, evaluation_id)


#: The keywords of :func:`evaluate` and :func:`evaluate_summary` that are the request's settings
#: (its fields but the campaign and measures; the rest are engine options): the request's own.
_REQUEST_KEYWORDS = tuple(field.name for field in setting_fields())
evaluate.__signature__ = _keywords_signature(evaluate, 3, {"judgment_set": None})

#: What an evaluation leaves for its caller (:func:`finish_into`): the numeric per-topic values
#: (what is stored: a temporary view, sql/evaluation/evaluation_scores.sql, over
#: evaluation_values) and their means by run (a temporary table).
SCORES_TABLE = "evaluation_scores"
MEANS_TABLE = "evaluation_run_means"


def resolve(con: duckdb.DuckDBPyConnection, request: EvaluationRequest) -> EvaluationRequest:
    """``request`` with its runs resolved against the warehouse (default: every run of the
    campaign); PyevalError naming a missing campaign, run or kind of qrels."""
    # the Python families (ndeval, umeasure) read per-intent judgments and check their own qrels
    any_qrels = not any(registry.reads_adhoc_qrels(m) for m in request.measures)
    runs = campaign_runs(con, request.campaign_id, request.runs, any_qrels=any_qrels)
    judgment_set = judgment_set_or_default(con, request.campaign_id, request.judgment_set)
    check_judgment_set(con, request.campaign_id, judgment_set)
    return request.replace(runs=tuple(runs), judgment_set=judgment_set,
                           every_run=request.every_run or request.runs is None)


def check_campaign(con, request: EvaluationRequest) -> None:
    """A diversity campaign has intents, and the campaign every probability variant the measures
    read; DataIntegrityError or MeasureParamError naming what is missing. An ad hoc campaign needs
    neither: its topic is one intent of probability 1 (view diversity_judgments)."""
    campaign_id = request.campaign_id
    variants = probability_variants(request.measures)
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    names = ", ".join(str(m) for m in request.measures if m.definition.staging not in ADHOC_PASS)
    diversity = row is not None and row[0] == "diversity"
    if diversity and first_row(con, "select count(*) from intents_by_set where campaign_id = $c",
                               {"c": campaign_id})[0] == 0:
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has no intents; diversity measures ({names}) need intent "
            "probabilities: load them (pyeval load intents) or generate them (pyeval intents generate)"
        )
    stored = {r[0] for r in con.execute(
        "select distinct variant from intent_variants where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}
    unknown = sorted(set(variants) - stored - {"given", "ndeval"})  # ndeval: uniform 1/N, no variant
    if unknown:
        raise MeasureParamError(
            f"unknown intent probability variant {unknown[0]!r} (campaign '{campaign_id}' has: given"
            + "".join(f", {v}" for v in sorted(stored))
            + "); store one with `pyeval intents generate` or `pyeval intents load`"
        )


def note_single_intent_topics(con, request: EvaluationRequest) -> None:
    """A SingleIntentWarning when diversity measures evaluate topics whose judgments name one
    relevant intent only (every topic of an ad hoc campaign, read as one intent of weight 1, as
    ndeval reads ad hoc qrels): there a diversity measure scores relevance to that intent alone."""
    names = [str(m) for m in request.measures if registry.reads_intents(m)]
    if not names:
        return
    single, total, kind = first_row(con, """
        select count(*) filter (where intents = 1), count(*), any_value(qrels_kind)
        from (select topic_id, count(distinct intent_id) filter (where level > 0) as intents
              from diversity_judgments where campaign_id = $c and judgment_set = $j group by topic_id)
        cross join (select qrels_kind from campaigns where campaign_id = $c)
    """, {"c": request.campaign_id, "j": request.judgment_set})
    if not single:
        return
    reading = " (ad hoc qrels: each topic is one intent of weight 1, as ndeval reads them)" if kind != "diversity" else ""
    warnings.warn(
        f"{', '.join(names[:3])}{', ...' if len(names) > 3 else ''}: {single} of {total} topics of campaign "
        f"'{request.campaign_id}' have one relevant intent{reading}; there a diversity measure scores "
        "relevance to that intent alone (docs/diversity-measures.md)", SingleIntentWarning, stacklevel=3)


#: What a measure of generated answers reads besides the answers (MeasureDef.answer_inputs) ->
#: the table holding it for a judgment set, and what a set without it is told to load
_ANSWER_JUDGMENTS = {"assignments": ("nugget_assignments", "nugget assignments (pyeval load assignments)"),
                     "support": ("citation_support", "citation support judgments (pyeval load support)")}


def check_answers(con, request: EvaluationRequest) -> None:
    """The measures of generated answers (MeasureDef.answer_inputs; docs/rag.md): PyevalError in
    one line when no evaluated run has answers, or when the judgment set holds none of the
    judgments a measure reads (nugget assignments, citation support); a PyevalWarning naming the
    runs without any answer (not scored by these measures) and the (run, topic) pairs without an
    answer (scored 0) of sql/evaluation/evaluation_nugget_pairs.sql."""
    answer_measures = [m for m in request.measures if m.definition.answer_inputs is not None]
    if not answer_measures:
        return
    keys = {"c": request.campaign_id, "j": request.judgment_set, "runs": list(request.runs or ())}
    for inputs in dict.fromkeys(m.definition.answer_inputs for m in answer_measures):
        if inputs not in _ANSWER_JUDGMENTS:
            continue
        table, what = _ANSWER_JUDGMENTS[inputs]
        # table is a constant of this module, never user input
        if first_row(con, f"select count(*) from {table} where campaign_id = $c and judgment_set = $j",
                     {"c": keys["c"], "j": keys["j"]})[0] == 0:
            names = ", ".join(str(m) for m in answer_measures if m.definition.answer_inputs == inputs)
            raise PyevalError(f"{names}: judgment set '{request.judgment_set}' of campaign '{request.campaign_id}' "
                              f"holds no {what}; name a set that does (--judgments NAME)")
    answering = {row[0] for row in con.execute(
        "select distinct run_id from answers where campaign_id = $c and list_contains($runs, run_id)",
        {"c": keys["c"], "runs": keys["runs"]}).fetchall()}
    names = ", ".join(str(m) for m in answer_measures[:3]) + (", ..." if len(answer_measures) > 3 else "")
    if not answering:
        raise PyevalError(f"{names}: no evaluated run of campaign '{request.campaign_id}' has answers "
                          "(pyeval load answers)")
    silent = [run for run in request.runs or () if run not in answering]
    if silent:
        warnings.warn(f"{names}: {len(silent)} run(s) without answers not scored: {_listed(silent)}",
                      PyevalWarning, stacklevel=3)
    if request.topics == "qrels":
        staged = request.replace(ordering=request.ordering or "trec")  # the pairs read no ordering
        parameters = sqlfiles.model("evaluation/evaluation_nugget_pairs.sql").bind(staged.stage_parameters())
        missing = con.execute(
            "select run_id || '/' || topic_id from (\n" + sqlfiles.read("evaluation/evaluation_nugget_pairs.sql")
            + "\n) where not answered order by run_id, topic_id", parameters).fetchall()
        if missing:
            warnings.warn(f"{names}: {len(missing)} (run, topic) pair(s) without an answer scored 0: "
                          f"{_listed([row[0] for row in missing])}", PyevalWarning, stacklevel=3)


def _listed(items: Sequence[str], shown: int = 10) -> str:
    """At most ``shown`` of ``items``, then how many more."""
    return ", ".join(items[:shown]) + (f", ... ({len(items) - shown} more)" if len(items) > shown else "")


def compute_values(con: duckdb.DuckDBPyConnection, request: EvaluationRequest, **engine_options) -> None:
    """``evaluation_values`` of ``request`` computed by its engine (pyeval.core.engine: the
    engine is asked first whether it supports every measure's family; PyevalError in one line
    naming the first it does not)."""
    chosen = engine(request.engine)
    check_supported(chosen, request.measures)
    chosen.compute(con, request, **engine_options)


def _evaluate_into(con: duckdb.DuckDBPyConnection, request: EvaluationRequest, store: bool,
                   engine_options: dict) -> tuple[EvaluationRequest, int | None]:
    """The invariants of every evaluation, on every engine: runs resolved, values computed into
    ``evaluation_values``, :func:`finish_into`; an inline gain profile the evaluation defined
    stays only when the evaluation is stored (removed when it is not, or fails)."""
    check_options(engine(request.engine), engine_options, _REQUEST_KEYWORDS)
    if store and read_only(con):
        raise PyevalError("the warehouse is open read-only: evaluate with store=False, or open it for writing")
    use_internal_schema(con)  # con may be a cursor: a session of its own, searching main only
    request = resolve(con, request)
    inline = sorted({m["gain"] for m in request.measures if m.has("gain") and is_inline_profile(m["gain"])}
                    - stored_profiles(con, request.campaign_id))
    if is_diversity(request):
        check_campaign(con, request)
    note_single_intent_topics(con, request)
    check_answers(con, request)
    kept = False
    try:
        compute_values(con, request, **engine_options)
        evaluation_id = finish_into(con, request, store)
        kept = evaluation_id is not None
    finally:
        if inline and not kept:  # an inline profile stays only with the evaluation that used it
            con.execute("delete from gain_profiles where campaign_id = $c and list_contains($p, profile)",
                        {"c": request.campaign_id, "p": inline})
    return request, evaluation_id


def finish_into(con: duckdb.DuckDBPyConnection, request: EvaluationRequest, store: bool) -> int | None:
    """From ``evaluation_values`` (whatever engine filled it): the numeric measures' values as
    :data:`SCORES_TABLE`, their means (each measure's declared aggregate,
    sql/evaluation/means.sql) as :data:`MEANS_TABLE`, and (``store``, when there are values)
    the stored evaluation with the request's settings, whose id is returned."""
    create_declared(con, "requested_order",
                    [(str(m), position, m.definition.storable) for position, m in enumerate(request.measures)])
    # a view: the numeric rows of evaluation_values, read by the means and the store, not copied
    con.execute(f"create or replace temp view {SCORES_TABLE} as\n" + sqlfiles.read("evaluation/evaluation_scores.sql"))
    means_into(con, request.numeric, MEANS_TABLE)
    if not store or not first_row(con, f"select count(*) from {MEANS_TABLE}")[0]:  # means iff values
        return None
    return _store(con, request)


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
    con.execute(f"drop view if exists {SCORES_TABLE}")  # pyeval's own names
    for table in (VALUES_TABLE, MEANS_TABLE, "requested_order"):
        con.execute(f"drop table if exists {table}")


def _measure_rows(measures: Sequence[Measure]) -> list[tuple]:
    """One row per stored measure: what its canonical name meant (evaluation_measures)."""
    import json  # only a stored evaluation needs it (the drop-ins import this module)

    return [
        (str(m), m.name, m.family, json.dumps(dict(m.values), sort_keys=True), m.definition.aggregate,
         m["gain"] if any(key == "gain" for key, _ in m.values) else None)
        for m in measures
    ]


def _store(con, request: EvaluationRequest) -> int:
    """Record one evaluation, all or nothing: its settings, inputs (sha256), measures, and the
    per-topic values and means of :data:`SCORES_TABLE` and :data:`MEANS_TABLE`. Nothing stored
    is ever updated or deleted afterwards."""
    import json

    from pyeval import __version__

    campaign_id, settings = request.campaign_id, request.stored_settings()
    ordering = ordering_column(orderings(request.measures, request.ordering))
    records = _measure_rows(request.numeric)
    profiles = sorted({record[-1] for record in records if record[-1] is not None})
    create_declared(con, "new_measures", records)
    try:
        with transaction(con):
            evaluation_id = first_row(con, "select coalesce(max(evaluation_id), 0) + 1 from evaluations")[0]
            keys = {"id": evaluation_id, "campaign_id": campaign_id, "judgment_set": request.judgment_set}
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
            answers = any(m.definition.answer_inputs is not None for m in request.measures)
            con.execute(sqlfiles.read("evaluation/record_inputs.sql"),
                        {**keys, "runs": settings["runs"], "profiles": profiles, "answers": answers})
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
            archive.record_evaluation(con, evaluation_id)  # the view scores' stored rows (docs/schema.md)
    finally:
        con.execute("drop table if exists new_measures")
    return evaluation_id
