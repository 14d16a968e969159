"""How an evaluation stages (pyeval/core/plan.py, pyeval/core/evaluation.py): the plan is pure and holds
only the stages its families read, each with the parameters its header declares; the
pandas-free evaluation_values table behind compute()."""
from __future__ import annotations

import math
import struct

import pytest

from pyeval.core import sqlfiles
from pyeval.core.evaluation import VALUES_TABLE, compute_into, means_into
from pyeval.measures import parse, registry
from pyeval.core.plan import ADHOC_STAGING, NUGGET_STAGING, plan, stage_steps, stages_read
from pyeval.core.request import EvaluationRequest

from .test_evaluation import campaign  # noqa: F401  (the fixture: test_evaluation's small campaign)

_TABLES = [sqlfiles.model(f"evaluation/{file}.sql").produces for file in ADHOC_STAGING]


def _request(*names: str, **settings) -> EvaluationRequest:
    return EvaluationRequest.build("c", list(names), runs=["r"], **settings)


def _staged(request: EvaluationRequest) -> dict[str, dict]:
    """relation -> bound parameters of the plan's stage steps, in plan order."""
    return {step.produces: dict(step.params) for step in plan(request).steps if step.kind == "stage"}


def test_only_the_stages_a_family_reads_are_built():
    created = list(_staged(_request("P@10")))
    # precision reads pairs, ranks and topics; pairs is built from levels and lists, ranks from
    # the ranked-and-cut entries
    assert sorted(created) == sorted([
        "evaluation_levels", "evaluation_entries", "evaluation_ranks", "evaluation_lists", "evaluation_pairs",
        "evaluation_topics",
    ])
    assert created.index("evaluation_entries") < created.index("evaluation_ranks")
    assert created.index("evaluation_ranks") < created.index("evaluation_lists")
    assert created.index("evaluation_lists") < created.index("evaluation_pairs")
    created = list(_staged(_request("Q")))
    assert "evaluation_relevant_ranks" in created and "evaluation_gains" in created
    assert "evaluation_gain_maxima" not in created and "evaluation_intents" not in created
    every = [s.produces for s in stage_steps(ADHOC_STAGING, _request("AP").stage_parameters()) if s.kind == "stage"]
    assert sorted(every) == sorted(_TABLES)  # no selection: every stage


def test_each_stage_is_given_the_parameters_its_header_declares():
    steps = {s.produces: dict(s.params) for s in stage_steps(ADHOC_STAGING, _request("AP").stage_parameters())
             if s.kind == "stage"}
    assert steps["evaluation_levels"] == {"campaign_id": "c", "judgment_set": "official"}
    assert steps["evaluation_topics"] == {"thresholds": [1]}
    assert steps["evaluation_components"] == {}
    assert set(steps["evaluation_entries"]) == {
        "campaign_id", "ordering", "runs", "all_runs", "max_depth", "judged_only", "negative_is_judged", "judgment_set"}
    assert steps["evaluation_ranks"] == {}


def test_the_plan_binds_the_request_and_lists_each_family_once():
    request = _request("P(rel=2)@5", "Q(gain=exp)", "AP", "NumQ", max_depth=50, judged_only=True, ordering="trec")
    steps = plan(request).steps
    assert steps[0].kind == "macros"
    families = [(s.kind, s.model, [str(m) for m in s.measures]) for s in steps if s.kind in ("family", "driver")]
    assert families == [("family", "metrics/metric_precision.sql", ["P(rel=2)@5"]),
                        ("family", "metrics/metric_qmeasure.sql", ["Q(gain=exp)"]),
                        ("family", "metrics/metric_average_precision.sql", ["AP"]),
                        ("family", "metrics/metric_counts.sql", ["NumQ"])]
    staged = _staged(request)
    assert staged["evaluation_entries"]["max_depth"] == 50 and staged["evaluation_entries"]["judged_only"] is True
    assert staged["evaluation_entries"]["runs"] == ["r"]
    assert staged["evaluation_topics"]["thresholds"] == [1, 2]
    profiles = [p["profiles"] for p in staged.values() if "profiles" in p]
    assert profiles and all(given == ["exp"] for given in profiles)
    for step in steps:  # every step is given exactly what its header declares
        if step.kind == "stage":
            assert set(step.params) == set(sqlfiles.model(step.model).params)


def test_a_measure_with_its_own_judged_only_is_a_pass_of_its_own():
    passes = plan(_request("AP", "P(judged_only=True)@5")).passes
    assert [p.request.judged_only for p in passes] == [True, False]
    assert [[str(m) for m in p.request.measures] for p in passes] == [["P(judged_only=True)@5"], ["AP"]]


def test_preferences_from_a_file_are_not_staged_from_the_qrels():
    from_qrels = _staged(_request("PrefsSimp"))
    from_file = _staged(_request("PrefsSimp").replace(preferences="file"))
    assert "evaluation_preferences" in from_qrels and "preference_closure" in from_qrels
    assert "evaluation_preferences" not in from_file


def test_a_diversity_plan_runs_composites_after_their_parts():
    request = EvaluationRequest.build("t", ["D#-nDCG@10", "IA_nDCG@10"], runs=["r"])
    result = plan(request)
    kinds = [p.staging.kind for p in result.passes]
    assert "per_intent" in kinds and "global" in kinds
    for index, current in enumerate(result.passes):
        for step in current.steps:
            for _, _, source, _ in step.sources:
                assert source < index
    assert {name for name, _ in result.outputs} == {str(m) for m in request.measures}


def test_every_stage_a_family_reads_is_a_stage():
    """Each family must read at least the pairs it scores: a ranked list's (run, topic) pairs, or
    for the measures of generated answers the (run, topic) answers they score."""
    for family in registry.sql_families():
        read = stages_read([f"metrics/metric_{family}.sql"], ADHOC_STAGING + NUGGET_STAGING)
        assert ("evaluation_nugget_pairs" if family == "nuggets" else "evaluation_pairs") in read, family


#: test_evaluation's campaign as the oracles see it: judgments per topic, and run r's documents
#: with their scores (trec_eval orders topic 1 a, c, b: c and b tie at 0.5, docno descending).
JUDGMENTS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 1}, "3": {"z": 1}}
RUN_R = {"1": {"b": 0.5, "a": 0.9, "c": 0.5}, "2": {"x": 1.0, "a": 0.5}}


def _trec_eval_9(measures: set[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval (trec_eval 9's C code) on the campaign's run r; it drops topic 3, which r lacks."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(JUDGMENTS, measures).evaluate(RUN_R)


def _q_measure(topic: str) -> float:
    """pyNTCIREVAL's Q-measure (beta 1, gains = levels) of run r on ``topic`` in trec_eval's order."""
    metrics = pytest.importorskip("pyNTCIREVAL.metrics")
    from .sql.ntcireval_cases import pyntcireval_inputs

    by_docno = sorted(RUN_R[topic], reverse=True)  # ties: docno descending
    docs = sorted(by_docno, key=lambda d: -RUN_R[topic][d])
    labelled, xrelnum = pyntcireval_inputs(JUDGMENTS[topic], docs, 2)
    return metrics.QMeasure(xrelnum, [1, 2], 1.0).compute(labelled)


def test_compute_into_stages_the_values_the_oracles_give(campaign):
    """compute_into's evaluation_values against independent oracles: pytrec_eval for the
    trec_eval measures, pyNTCIREVAL for Q, trec_eval's relstring labels by hand; topic 3, which
    the run lacks, is an empty list (docs/tool-rules.md section 2)."""
    measures = [parse(name) for name in ("AP", "P@2", "nDCG@3", "Q", "RelString@3", "NumRet")]
    compute_into(campaign, EvaluationRequest("c", tuple(measures), runs=("r",), ordering="trec"))  # the oracles' order, for Q too
    rows = campaign.execute(
        f"select run_id, topic_id, measure, value, value_text from {VALUES_TABLE}"
    ).fetchall()
    assert len(rows) == 3 * len(measures) and {row[0] for row in rows} == {"r"}
    got = {(topic, measure): value for _, topic, measure, value, _ in rows}
    text = {(topic, measure): value_text for _, topic, measure, _, value_text in rows}
    oracle = _trec_eval_9({"map", "P.2", "ndcg_cut.3", "num_ret"})
    for topic in ("1", "2"):
        assert got[topic, "AP"] == pytest.approx(oracle[topic]["map"], abs=1e-12)
        assert got[topic, "P@2"] == pytest.approx(oracle[topic]["P_2"], abs=1e-12)
        assert got[topic, "nDCG@3"] == pytest.approx(oracle[topic]["ndcg_cut_3"], abs=1e-12)
        assert got[topic, "NumRet"] == oracle[topic]["num_ret"]
        assert got[topic, "Q"] == pytest.approx(_q_measure(topic), abs=1e-12)
    assert [got["3", m] for m in ("AP", "P@2", "nDCG@3", "Q", "NumRet")] == [0, 0, 0, 0, 0]
    # relstring: levels of the top 3 as digits, '-' for a document not in the qrels
    assert (text["1", "RelString@3"], text["2", "RelString@3"]) == ("120", "-1")
    # no stage is left behind
    left = {row[0] for row in campaign.execute("select table_name from duckdb_tables() where temporary").fetchall()}
    assert not left & set(_TABLES) and "requested_measures" not in left


def _logged(con, action) -> list[str]:
    """The statements DuckDB ran for ``action()`` on ``con`` (its query log)."""
    con.execute("call enable_logging('QueryLog')")
    try:
        action()
    finally:
        con.execute("call disable_logging()")
    queries = [row[0] for row in con.execute("select message from duckdb_logs where type = 'QueryLog'").fetchall()]
    con.execute("call truncate_duckdb_logs()")
    return queries


def _values(con) -> list[tuple]:
    """evaluation_values' rows, sorted (and the table dropped); values as the bits of the double."""
    rows = con.execute(f"select run_id, topic_id, measure, value, value_text from {VALUES_TABLE} "
                       "order by run_id, topic_id, measure").fetchall()
    con.execute(f"drop table {VALUES_TABLE}")
    return [(*row[:3], struct.pack("<d", row[3]) if row[3] is not None else None, row[4]) for row in rows]


def test_a_pass_of_sql_families_is_one_statement_giving_the_step_by_step_values(campaign):  # noqa: F811
    """The DuckDB engine runs an ad hoc pass of SQL families as one statement: no stage made as a
    table, the stages common table expressions of the insert into evaluation_values; its values
    are those of the stages made one by one and a statement per family, bit for bit."""
    from pyeval.core.evaluation import resolve
    from pyeval.core.plan import execute
    from pyeval.core.stages import DuckDBExecutor, one_statement

    request = resolve(campaign, _request("AP", "nDCG@10", "P@2", "NumRet", "RR", "Bpref", "ERR@20",
                                         "RelString@3", ordering="trec"))
    planned = plan(request)
    (one,) = planned.passes
    assert one_statement(one)
    ran = _logged(campaign, lambda: compute_into(campaign, request))
    assert not [q for q in ran if "temp table evaluation_" in q and "evaluation_values" not in q]
    (statement,) = [q for q in ran if q.startswith(f"insert into {VALUES_TABLE}")]
    assert "evaluation_entries as (" in statement and "metric_average_precision as (" in statement
    compiled = _values(campaign)
    executor = DuckDBExecutor(campaign)  # not given the plan: a table per stage, a statement per family
    ran = _logged(campaign, lambda: execute(planned, executor))
    assert len([q for q in ran if q.startswith(f"insert into {VALUES_TABLE}")]) == len(planned.families())
    assert any(q.startswith("create or replace temp table evaluation_entries") for q in ran)
    assert compiled == _values(campaign) and len(compiled) == 3 * 8
    left = {row[0] for row in campaign.execute("select table_name from duckdb_tables() where temporary").fetchall()}
    assert not left & set(_TABLES) and not any(name.startswith("requested_measures") for name in left)


def test_a_pass_with_a_python_driver_stages_tables():
    """A driver reads staged tables: its pass is not one statement (nor is a composite's, given
    component rows), and a pass whose stages bound one parameter name to two values would not be."""
    from pyeval.core.plan import Pass, Staging, Step
    from pyeval.core.stages import one_statement

    (one,) = plan(_request("alpha_nDCG@10", "P@10", ordering="rank")).passes
    assert not one_statement(one)
    (adhoc,) = plan(_request("P@10")).passes
    assert one_statement(adhoc)
    steps = [Step("stage", "evaluation/evaluation_levels.sql", "evaluation_levels", {"campaign_id": "c"}),
             Step("stage", "evaluation/evaluation_lists.sql", "evaluation_lists", {"campaign_id": "d"})]
    assert not one_statement(Pass(Staging(), adhoc.request, tuple(steps)))


def test_means_into(campaign):
    """Means over the three judged topics (topic 3 scores 0): P@2 (1 + 1/2 + 0)/3, NumRet summed
    (3 + 2 + 0), GMAP trec_eval's geometric mean with each AP floored at 1e-5, the APs from
    pytrec_eval."""
    measures = [parse("P@2"), parse("NumRet"), parse("GMAP")]
    compute_into(campaign, EvaluationRequest("c", tuple(measures), runs=("r",)))
    means_into(campaign, measures, "summary", scores=VALUES_TABLE)
    got = dict(campaign.execute("select measure, value from summary").fetchall())
    assert got["P@2"] == pytest.approx(0.5) and got["NumRet"] == 5.0
    ap = [value["map"] for value in _trec_eval_9({"map"}).values()] + [0.0]
    assert got["GMAP"] == pytest.approx(math.exp(sum(math.log(max(v, 1e-5)) for v in ap) / 3), abs=1e-12)


def test_measures_ranked_by_different_orderings_are_parts_of_one_plan():
    """Without an ordering, each measure is ranked as the tool it is named after reads a run
    (AP: trec_eval's order; Q: NTCIREVAL's file order): one pass per ordering, values joined."""
    request = _request("AP", "Q")
    result = plan(request)
    assert [(p.request.ordering, [str(m) for m in p.request.measures]) for p in result.passes] == [
        ("trec", ["AP"]), ("file", ["Q"])]
    entries = [dict(s.params)["ordering"] for s in result.steps if s.produces == "evaluation_entries"]
    assert entries == ["trec", "file"]
    assert request.stored_settings()["orderings"] == {"trec": ["AP"], "file": ["Q"]}


def test_a_driver_reads_lists_the_plan_stages_before_it():
    """The lists a Python family's driver reads are stages of its pass, bound from the request
    and made before the driver step; a stage the SQL families read too is made once."""
    request = _request("alpha_nDCG@10", "P@10", ordering="rank", max_depth=20)
    (one,) = plan(request).passes
    kinds = [(step.kind, step.produces) for step in one.steps]
    driver = kinds.index(("driver", "evaluation_values"))
    for table in ("driver_topics", "driver_lists", "driver_entries", "evaluation_entries"):
        assert kinds.index(("stage", table)) < driver
    assert one.staged.count("evaluation_entries") == 1
    staged = _staged(request)
    assert staged["driver_lists"] == {"runs": ["r"], "campaign_id": "c", "topic_policy": "qrels"}
    assert staged["evaluation_entries"]["max_depth"] == 20
    for step in one.steps:
        if step.kind == "stage":
            assert set(step.params) == set(sqlfiles.model(step.model).params)
    alone = [(s.kind, s.produces) for s in plan(_request("U@10")).steps]
    assert alone[0] == ("macros", None) and ("stage", "driver_entries") in alone


def test_the_engine_stages_a_drivers_lists_and_the_driver_stages_nothing(campaign, monkeypatch):  # noqa: F811
    from pyeval.core import stages
    from pyeval.core.evaluation import resolve

    request = resolve(campaign, _request("alpha_nDCG@10"))
    made = []
    original = stages.DuckDBExecutor.stage
    monkeypatch.setattr(stages.DuckDBExecutor, "stage",
                        lambda self, step: made.append(step.produces) or original(self, step))
    compute_into(campaign, request)
    assert {"evaluation_entries", "driver_topics", "driver_lists", "driver_entries"} <= set(made)
    assert campaign.execute("select count(*) from duckdb_tables() where table_name like 'driver_%'").fetchone()[0] == 0
    (measure,) = request.measures
    with pytest.raises(Exception, match="driver_lists"):  # not staged: the plan stages, not the driver
        registry.driver("ndeval")(campaign, [measure], request)


def test_gain_profiles_are_the_plans_first_step_made_once():
    request = _request("nDCG(gain='0=1,1=4')@10", "nDCG(gain='0=1,1=4',judged_only=True)@5",
                       "nDCG(gain=mine)@5", "alpha_nDCG@10")
    result = plan(request)
    assert len(result.passes) == 3  # its own judged_only, another ordering
    steps = result.steps
    assert steps[0].kind == "profiles"
    assert dict(steps[0].params) == {"campaign_id": "c", "profiles": ["0=1,1=4", "mine"]}
    assert [s.kind for s in steps].count("profiles") == 1  # several passes, one definition
    assert result.setup == (steps[0],)  # made before any pass
    from pyeval.core.plan import describe

    assert describe(result).splitlines()[:2] == [
        "  profiles   gain_profiles: checked, an inline one defined",
        "             params: $campaign_id = 'c', $profiles = ['0=1,1=4', 'mine']"]
    named = plan(_request("nDCG(gain=mine)@10", "nDCG(gain=exp)@5")).steps[0]
    assert named.kind == "profiles" and named.params["profiles"] == ["mine"]  # a stored one: checked
    assert all(s.kind != "profiles" for s in plan(_request("nDCG(gain=exp)@10", "AP")).steps)


def test_the_profiles_step_defines_an_inline_profile_and_refuses_an_unknown_one(campaign):  # noqa: F811
    from pyeval.core.plan import execute
    from pyeval.core.stages import DuckDBExecutor, stored_profiles
    from pyeval.errors import MeasureParamError

    step = plan(_request("nDCG(gain='0=1,1=4')@10")).steps[0]
    DuckDBExecutor(campaign).profiles(step)
    assert "0=1,1=4" in stored_profiles(campaign, "c")
    with pytest.raises(MeasureParamError, match="unknown gain profile 'nosuch'"):
        execute(plan(_request("nDCG(gain=nosuch)@10")), DuckDBExecutor(campaign))
    campaign.execute("delete from gain_profiles where campaign_id = 'c' and profile = '0=1,1=4'")


def test_no_engine_writes_gain_profiles_itself():
    """Every engine defines the profiles by executing the plan's setup step
    (stages.define_profiles), and the DuckDB engine's compute_into only executes the plan."""
    import inspect
    import pathlib

    import pyeval
    from pyeval.core import stages

    root = pathlib.Path(pyeval.__file__).parent
    callers = sorted(str(path.relative_to(root)) for path in root.rglob("*.py")
                     if "define_profiles(" in path.read_text() or "check_gain_profiles" in path.read_text())
    # stages.py defines and executes it; Spark (on the warehouse before its export) and the
    # resident engine execute their plan's setup steps with it
    assert set(callers) == {"core/stages.py", "engines/spark.py", "engines/resident.py"}
    assert "for step in planned.setup:" in (root / "engines" / "resident.py").read_text()
    assert "profiles" not in inspect.getsource(stages.compute_into).split('"""')[-1]


def test_every_run_skips_the_filter_by_run_and_gives_the_same_values(campaign):  # noqa: F811
    """A request for every run of the campaign (runs not named) is resolved with every_run, and
    the stages bind $all_runs (no filter by run over the campaign's rows); the values are those
    of the same runs named one by one, bit for bit. A request naming its runs keeps the filter."""
    from pyeval.core.evaluation import resolve

    every = resolve(campaign, EvaluationRequest.build("c", ["AP", "P@2", "NumRet"]))
    named = resolve(campaign, EvaluationRequest.build("c", ["AP", "P@2", "NumRet"], runs=list(every.runs)))
    assert every.every_run and not named.every_run and every.runs == named.runs
    assert _staged(every)["evaluation_entries"]["all_runs"] is True
    assert _staged(named)["evaluation_lists"]["all_runs"] is False
    compute_into(campaign, every)
    all_values = _values(campaign)
    compute_into(campaign, named)
    assert all_values == _values(campaign) and all_values
