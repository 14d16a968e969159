"""Evaluating campaigns (pyeval/core/evaluation.py): policies, storage, the scores view, the CLI."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import DataIntegrityError, PyevalError, UnknownCampaignError
from pyeval.core.evaluation import evaluate

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n3 0 z 1\n"
# file order: b, a, c; rank column: c, a, b; scores: a > b = c (tie: docno desc -> c before b)
RUN = "1 Q0 b 3 0.5 r\n1 Q0 a 2 0.9 r\n1 Q0 c 1 0.5 r\n2 Q0 x 1 1.0 r\n2 Q0 a 2 0.5 r\n"


@pytest.fixture
def campaign(con, write):
    pyeval.load_qrels(con, "c", write("q.txt", QRELS))
    pyeval.load_run(con, "c", write("r.txt", RUN))
    return con


def per_topic(result, measure):
    frame = result.per_topic[result.per_topic["measure"] == measure]
    return dict(zip(frame["topic_id"], frame["value"]))


def test_orderings(campaign):
    # relevant docs: topic 1 a (1), c (2); RR = 1/rank of the first relevant document
    assert per_topic(evaluate(campaign, "c", ["RR"], store=False), "RR")["1"] == 1.0  # a first
    assert per_topic(evaluate(campaign, "c", ["RR"], ordering="rank", store=False), "RR")["1"] == 1.0  # c
    assert per_topic(evaluate(campaign, "c", ["RR"], ordering="file", store=False), "RR")["1"] == 0.5  # b, a
    file_p1 = per_topic(evaluate(campaign, "c", ["P@1"], ordering="file", store=False), "P@1")
    assert file_p1 == {"1": 0.0, "2": 0.0, "3": 0.0}


def test_each_measure_is_ranked_as_its_tool_ranks_and_the_store_says_so(campaign):
    """Issue 31/32: with no ordering named, a C/W/L measure reads the run in file order as
    cwl_eval does while a trec_eval measure keeps trec_eval's order, in one evaluation; the
    stored evaluation records which ordering ranked each measure. A named ordering ranks all."""
    import json

    both = ["RR(rel=2)", "SDCG(max_rel=2)@1"]  # topic 1: trec order a, c, b; file order b, a, c
    result = evaluate(campaign, "c", both)
    assert per_topic(result, "RR(rel=2)")["1"] == 0.5  # c second under trec_eval's order
    assert per_topic(result, "SDCG(max_rel=2)@1")["1"] == 0.0  # b (level 0) first in the file
    ordering, settings = campaign.execute(
        "select ordering, settings from evaluations where evaluation_id = $id", {"id": result.evaluation_id}
    ).fetchone()
    assert ordering == "per-measure"
    assert json.loads(settings)["orderings"] == {"trec": ["RR(rel=2)"], "file": ["SDCG(max_rel=2)@1"]}
    named = evaluate(campaign, "c", both, ordering="trec")
    assert per_topic(named, "SDCG(max_rel=2)@1")["1"] == 0.5
    ordering, settings = campaign.execute(
        "select ordering, settings from evaluations where evaluation_id = $id", {"id": named.evaluation_id}
    ).fetchone()
    assert ordering == "trec" and json.loads(settings)["orderings"] == {"trec": both}
    alone = evaluate(campaign, "c", ["SDCG(max_rel=2)@1"])
    assert campaign.execute("select ordering from evaluations where evaluation_id = $id",
                            {"id": alone.evaluation_id}).fetchone() == ("file",)


def test_topic_policies(campaign):
    full = evaluate(campaign, "c", ["P@2", "NumQ"], store=False)
    assert per_topic(full, "P@2") == {"1": 1.0, "2": 0.5, "3": 0.0}  # topic 3: not retrieved
    means = dict(zip(full.means["measure"], full.means["value"]))
    assert means == {"P@2": pytest.approx(0.5), "NumQ": 3.0}
    both = evaluate(campaign, "c", ["P@2", "NumQ"], topics="intersection", store=False)
    assert dict(zip(both.means["measure"], both.means["value"])) == {"P@2": 0.75, "NumQ": 2.0}


def test_depth_and_judged_only(campaign):
    assert per_topic(evaluate(campaign, "c", ["NumRet"], max_depth=2, store=False), "NumRet") == {
        "1": 2.0, "2": 2.0, "3": 0.0
    }
    # topic 2: x is unjudged; judged only, a moves to rank 1
    judged = evaluate(campaign, "c", ["RR", "NumRet"], judged_only=True, store=False)
    assert per_topic(judged, "RR")["2"] == 1.0 and per_topic(judged, "NumRet")["2"] == 1.0


def test_storage_and_the_scores_view(campaign):
    first = evaluate(campaign, "c", ["AP", "P@2"])
    assert first.evaluation_id == 1
    stored = campaign.execute("select evaluation_id, ordering, settings from evaluations").fetchall()
    assert stored[0][:2] == (1, "trec") and '"measures": ["AP", "P@2"]' in stored[0][2]
    second = evaluate(campaign, "c", ["P@2"], ordering="file")
    assert second.evaluation_id == 2
    scores = campaign.execute(
        "select topic_id, measure, value from scores order by measure, topic_id"
    ).fetchall()
    file_p2 = per_topic(second, "P@2")
    assert [row for row in scores if row[1] == "P@2"] == [("1", "P@2", file_p2["1"]), ("2", "P@2", file_p2["2"]),
                                                        ("3", "P@2", 0.0)]
    assert len([row for row in scores if row[1] == "AP"]) == 3
    assert campaign.execute("select count(*) from topic_scores").fetchall() == [(9,)]  # history kept


def test_trec_eval_names_and_wide_form(campaign):
    result = evaluate(campaign, "c", ["map", "P.1,2"], store=False)
    assert list(result.wide().columns) == ["AP", "P@1", "P@2"]
    assert list(result.per_topic.columns) == ["run_id", "topic_id", "measure", "value"]


def test_errors(campaign, write):
    with pytest.raises(UnknownCampaignError):
        evaluate(campaign, "nope", ["AP"])
    with pytest.raises(PyevalError, match="no run named 'ghost'"):
        evaluate(campaign, "c", ["AP"], runs=["ghost"])
    with pytest.raises(PyevalError, match="ordering must be one of"):
        evaluate(campaign, "c", ["AP"], ordering="random")
    pyeval.load_qrels(campaign, "d", write("d.txt", "1 1 a 1\n1 2 b 1\n"))
    pyeval.load_run(campaign, "d", write("dr.txt", "1 Q0 a 1 1 r\n"))
    with pytest.raises(DataIntegrityError, match="diversity qrels"):
        evaluate(campaign, "d", ["AP"])


def test_evaluate_command(tmp_path, write):
    db = tmp_path / "w.duckdb"
    runner = CliRunner()
    assert runner.invoke(main, ["--db", str(db), "load", "qrels", "-C", "c", str(write("q.txt", QRELS))]).exit_code == 0
    assert runner.invoke(main, ["--db", str(db), "load", "run", "-C", "c", str(write("r.txt", RUN))]).exit_code == 0
    result = runner.invoke(main, ["--db", str(db), "evaluate", "-C", "c", "-m", "P@2", "-m", "map", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:2] == ["run_id,P@2,AP", "r,0.5,0.5"]
    assert "stored as evaluation 1" in result.stderr
    shown = runner.invoke(main, ["--db", str(db), "sql", "select count(*) as n from scores", "--format", "csv"])
    assert shown.stdout == "n\n6\n"
    bad = runner.invoke(main, ["--db", str(db), "evaluate", "-C", "c", "-m", "nDGC@10"])
    assert bad.exit_code == 1 and "did you mean nDCG" in bad.output


def test_a_string_is_one_measure_or_run_not_its_letters(campaign):
    result = evaluate(campaign, "c", "AP", runs="r", store=False)
    assert set(result.per_topic["measure"]) == {"AP"} and set(result.per_topic["run_id"]) == {"r"}


def test_evaluate_on_a_read_only_warehouse_says_so(tmp_path, write):
    path = tmp_path / "w.duckdb"
    with pyeval.connect(path) as con:
        pyeval.load_qrels(con, "c", write("q.txt", QRELS))
        pyeval.load_run(con, "c", write("r.txt", RUN))
    with pyeval.connect(path, read_only=True) as con:
        with pytest.raises(PyevalError, match="open read-only: evaluate with store=False"):
            evaluate(con, "c", ["AP"])
        assert len(evaluate(con, "c", ["AP"], store=False).per_topic) == 3


def test_python_errors_name_arguments_and_the_cli_names_options(campaign):
    with pytest.raises(PyevalError) as raised:
        evaluate(campaign, "c", [], store=False)
    assert "-m" not in str(raised.value) and "measures=" in str(raised.value)
    assert raised.value.command_line == "no measure requested (e.g. -m AP -m nDCG@10)"


INLINE = "nDCG(gains={0:1,1:4})@10"
#: gdeval's ERR takes gains up to 4: this inline profile fails in its family, after the check
FAILING = "ERR(gain='0=0,1=1,2=9')@10"


def check_inline_profile_rule(con, campaign_id: str, **engine) -> None:
    """An inline gain profile stays in gain_profiles only with a stored evaluation that used it:
    not stored, failed after the profile check, stored (the same rule on every engine)."""
    profiles = "select distinct profile from gain_profiles where campaign_id = $c and profile like '%=%' order by 1"
    before = con.execute(profiles, {"c": campaign_id}).fetchall()
    evaluate(con, campaign_id, [INLINE], store=False, **engine)
    assert con.execute(profiles, {"c": campaign_id}).fetchall() == before
    with pytest.raises(PyevalError, match="metric_cascade"):
        evaluate(con, campaign_id, [INLINE, FAILING], **engine)
    assert con.execute(profiles, {"c": campaign_id}).fetchall() == before
    stored = evaluate(con, campaign_id, [INLINE], **engine)
    assert stored.evaluation_id is not None
    assert con.execute(profiles, {"c": campaign_id}).fetchall() == sorted(before + [("0=1,1=4",)])


def test_the_inline_profile_rule_on_duckdb(campaign):
    check_inline_profile_rule(campaign, "c")


def test_evaluate_takes_a_request_and_stores_its_settings(campaign):
    import json

    from pyeval.core.evaluation import run
    from pyeval.core.request import EvaluationRequest

    request = EvaluationRequest.build("c", ["P@2", "RelString@2"], runs=["r"], max_depth=5)
    result = run(campaign, request)
    settings = campaign.execute("select settings from evaluations where evaluation_id = $e",
                                {"e": result.evaluation_id}).fetchone()[0]
    assert json.loads(settings) == {"measures": ["P@2"], "runs": ["r"], "max_depth": 5, "judged_only": False,
                                    "topics": "qrels", "orderings": {"trec": ["P@2", "RelString@2"]},
                                    "judgment_set": "official"}
    with pytest.raises(PyevalError, match="ordering must be one of"):
        request.replace(ordering="score")
    with pytest.raises(PyevalError, match="max_depth must be a positive integer"):
        EvaluationRequest.build("c", ["AP"], max_depth=0)


def test_evaluate_takes_every_setting_of_the_request(campaign, tmp_path, write):
    """The request is the one signature: every field but the campaign and measures is a keyword
    of evaluate() (preferences excepted: the trec_eval drop-in's -R prefs stages its file) and of
    evaluate_summary(); gain_profile and probs give what `pyeval evaluate --gains --probs` gives."""
    import dataclasses
    import inspect

    from pyeval.core.evaluation import _REQUEST_KEYWORDS
    from pyeval.core.request import EvaluationRequest

    from pyeval.core.request import setting_fields

    fields = {f.name for f in dataclasses.fields(EvaluationRequest)} - {"campaign_id", "measures", "every_run"}
    assert set(_REQUEST_KEYWORDS) == fields == {f.name for f in setting_fields()}  # every_run: resolved
    shown = inspect.signature(evaluate).parameters  # generated from the fields (help(), editors)
    assert fields <= set(shown) and shown["judgment_set"].default is None  # evaluate: the campaign's default set
    python = evaluate(campaign, "c", ["nDCG@10", "P@10"], gain_profile="exp", store=False).means
    assert set(python["measure"]) == {"nDCG(gain=exp)@10", "P@10"}  # P has no gain to give
    db = str(tmp_path / "cli.duckdb")
    runner = CliRunner()
    for args in (["load", "qrels", "-C", "c", write("q2.txt", QRELS)], ["load", "run", "-C", "c", write("r2.txt", RUN)]):
        assert runner.invoke(main, ["--db", db, *map(str, args)]).exit_code == 0
    out = runner.invoke(main, ["--db", db, "evaluate", "-C", "c", "-m", "nDCG@10", "--gains", "exp", "--no-store",
                               "--format", "csv"]).output
    value = float(out.splitlines()[1].split(",")[1])
    assert python.loc[python["measure"] == "nDCG(gain=exp)@10", "value"].iloc[0] == pytest.approx(value, abs=1e-9)
    with pytest.raises(PyevalError, match="unknown intent probability variant 'nosuch'"):
        evaluate(campaign, "c", ["D_nDCG@10"], probs="nosuch", store=False)
    with pytest.raises(PyevalError, match="unknown keyword 'max_dpeth': the settings of an evaluation are runs, "
                                          "ordering, max_depth"):
        evaluate(campaign, "c", ["AP"], max_dpeth=5, store=False)
    with pytest.raises(PyevalError, match="unknown setting max_dpeth"):
        EvaluationRequest.build("c", ["AP"], max_dpeth=5)


def test_every_setting_of_the_request_is_an_option_of_evaluate_and_explain():
    """The options of `pyeval evaluate` and `pyeval explain` are made from the fields of
    EvaluationRequest (their metadata: flags, kind, help): a new field is a new option of both,
    with its field's help, unless its metadata says it is none (preferences: the trec_eval
    drop-in's -R prefs sets it)."""
    import dataclasses

    from pyeval.cli.evaluating import evaluate_command, explain_command
    from pyeval.core.request import EvaluationRequest

    fields = [f for f in dataclasses.fields(EvaluationRequest)
              if f.name != "campaign_id" and not f.metadata.get("resolved")]  # every_run: not a setting
    for command in (evaluate_command, explain_command):
        options = {p.name: p for p in command.params}
        for field in fields:
            if field.metadata["option"] is None:
                assert field.name not in options, field.name
            else:
                assert options[field.name].help.startswith(field.metadata["help"]), (command.name, field.name)
    assert {f.name for f in fields if f.metadata["option"] is None} == {"preferences"}
