"""How an evaluation stages (pyeval/evaluation.py): only the stages its families read, and the
pandas-free evaluation_values table behind compute()."""
from __future__ import annotations

import math

import pytest

from pyeval import sqlfiles
from pyeval.evaluation import VALUES_TABLE, compute_into, means_into
from pyeval.measures import parse, registry
from pyeval.stages import ADHOC_STAGING, run_stages, stage_settings, stages_read

from .test_evaluation import campaign  # noqa: F401  (the fixture: test_evaluation's small campaign)

_SETTINGS = stage_settings("c", ["r"], [], ordering="trec", max_depth=None, judged_only=False, topics="qrels")
_TABLES = [sqlfiles.model(f"evaluation/{file}.sql").produces for file in ADHOC_STAGING]


class _Recorder:
    """Stands in for a connection: records the tables run_stages creates and their parameters."""

    def __init__(self):
        self.created: list[str] = []
        self.parameters: dict[str, dict] = {}

    def execute(self, sql, parameters=None):
        if sql.startswith("create or replace temp table "):
            self.created.append(sql.split()[5])
            self.parameters[sql.split()[5]] = parameters
        return self


def test_only_the_stages_a_family_reads_are_built():
    recorder = _Recorder()
    run_stages(recorder, ADHOC_STAGING, _SETTINGS, stages_read(["metrics/metric_precision.sql"]))
    # precision reads pairs, ranks and topics; pairs is built from levels and lists, ranks from
    # the ranked-and-cut entries
    assert sorted(recorder.created) == sorted([
        "evaluation_levels", "evaluation_entries", "evaluation_ranks", "evaluation_lists", "evaluation_pairs",
        "evaluation_topics",
    ])
    assert recorder.created.index("evaluation_entries") < recorder.created.index("evaluation_ranks")
    assert recorder.created.index("evaluation_ranks") < recorder.created.index("evaluation_lists")
    assert recorder.created.index("evaluation_lists") < recorder.created.index("evaluation_pairs")
    recorder = _Recorder()
    run_stages(recorder, ADHOC_STAGING, _SETTINGS, stages_read(["metrics/metric_qmeasure.sql"]))
    assert "evaluation_relevant_ranks" in recorder.created and "evaluation_gains" in recorder.created
    assert "evaluation_gain_maxima" not in recorder.created and "evaluation_intents" not in recorder.created
    recorder = _Recorder()
    run_stages(recorder, ADHOC_STAGING, _SETTINGS)  # no selection: every stage
    assert sorted(recorder.created) == sorted(_TABLES)


def test_each_stage_is_given_the_parameters_its_header_declares():
    recorder = _Recorder()
    run_stages(recorder, ADHOC_STAGING, _SETTINGS)
    assert recorder.parameters["evaluation_levels"] == {"campaign_id": "c", "judgment_set": "official"}
    assert recorder.parameters["evaluation_topics"] == {"thresholds": [1]}
    assert recorder.parameters["evaluation_components"] == {}
    assert set(recorder.parameters["evaluation_entries"]) == {
        "campaign_id", "ordering", "runs", "max_depth", "judged_only", "negative_is_judged", "judgment_set"}
    assert recorder.parameters["evaluation_ranks"] == {}


def test_every_stage_a_family_reads_is_a_stage():
    """Each family must read at least the pairs it scores."""
    for family in registry.sql_families():
        read = stages_read([f"metrics/metric_{family}.sql"])
        assert "evaluation_pairs" in read, family


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
    compute_into(campaign, "c", measures, runs=["r"], ordering="trec")  # the oracles' order, for Q too
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


def test_means_into(campaign):
    """Means over the three judged topics (topic 3 scores 0): P@2 (1 + 1/2 + 0)/3, NumRet summed
    (3 + 2 + 0), GMAP trec_eval's geometric mean with each AP floored at 1e-5, the APs from
    pytrec_eval."""
    measures = [parse("P@2"), parse("NumRet"), parse("GMAP")]
    compute_into(campaign, "c", measures, runs=["r"])
    campaign.execute(f"create temp view evaluation_scores as select * from {VALUES_TABLE}")
    means_into(campaign, measures, "summary")
    got = dict(campaign.execute("select measure, value from summary").fetchall())
    campaign.execute("drop view evaluation_scores")
    assert got["P@2"] == pytest.approx(0.5) and got["NumRet"] == 5.0
    ap = [value["map"] for value in _trec_eval_9({"map"}).values()] + [0.0]
    assert got["GMAP"] == pytest.approx(math.exp(sum(math.log(max(v, 1e-5)) for v in ap) / 3), abs=1e-12)
