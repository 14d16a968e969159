"""How an evaluation stages (pyeval/evaluation.py): only the stages its families read, and the
pandas-free evaluation_values table behind compute()."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval import sqlfiles
from pyeval.evaluation import VALUES_TABLE, compute, compute_into, means_into
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
    assert recorder.parameters["evaluation_levels"] == {"campaign_id": "c"}
    assert recorder.parameters["evaluation_topics"] == {"thresholds": [1]}
    assert recorder.parameters["evaluation_components"] == {}
    assert set(recorder.parameters["evaluation_entries"]) == {
        "campaign_id", "ordering", "runs", "max_depth", "judged_only", "negative_is_judged"}
    assert recorder.parameters["evaluation_ranks"] == {}


def test_every_stage_a_family_reads_is_a_stage():
    """Each family must read at least the pairs it scores."""
    for family in registry.sql_families():
        read = stages_read([f"metrics/metric_{family}.sql"])
        assert "evaluation_pairs" in read, family


def test_compute_into_matches_compute(campaign):
    measures = [parse(name) for name in ("AP", "P@2", "nDCG@3", "Q", "RelString@3", "NumRet")]
    frame = compute(campaign, "c", measures, runs=["r"])
    compute_into(campaign, "c", measures, runs=["r"])
    rows = campaign.execute(
        f"select run_id, topic_id, measure, value, value_text from {VALUES_TABLE}"
    ).fetchall()
    expected = [
        tuple(None if pd.isna(value) else value for value in row)
        for row in frame[["run_id", "topic_id", "measure", "value", "value_text"]].itertuples(index=False)
    ]
    assert sorted(rows, key=repr) == sorted(expected, key=repr)
    assert len(rows) == 3 * len(measures)
    # no stage is left behind
    left = {row[0] for row in campaign.execute("select table_name from duckdb_tables() where temporary").fetchall()}
    assert not left & set(_TABLES) and "requested_measures" not in left


def test_means_into(campaign):
    measures = [parse("P@2"), parse("NumRet"), parse("GMAP")]
    compute_into(campaign, "c", measures, runs=["r"])
    campaign.execute(f"create temp view evaluation_scores as select * from {VALUES_TABLE}")
    means_into(campaign, measures, "summary")
    got = dict(campaign.execute("select measure, value from summary").fetchall())
    campaign.execute("drop view evaluation_scores")
    assert got["P@2"] == pytest.approx(0.5) and got["NumRet"] == 5.0
    assert got["GMAP"] == pytest.approx(pyeval.evaluate(campaign, "c", ["GMAP"], store=False).means["value"][0])
