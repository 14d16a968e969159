"""How an evaluation stages (pyeval/evaluation.py): only the stages its families read, and the
pandas-free evaluation_values table behind compute()."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval import sqlfiles
from pyeval.evaluation import (
    _STAGES,
    VALUES_TABLE,
    compute,
    compute_into,
    means_into,
    run_stages,
    stages_read,
)
from pyeval.measures import parse, registry

from .test_evaluation import campaign  # noqa: F401  (the fixture: test_evaluation's small campaign)


class _Recorder:
    """Stands in for a connection: records the tables run_stages creates."""

    def __init__(self):
        self.created: list[str] = []

    def execute(self, sql, parameters=None):
        if sql.startswith("create or replace temp table "):
            self.created.append(sql.split()[5])
        return self


def _stage_files():
    return [(stage, "topic_judgments" if stage == "evaluation_topics" else stage, {}) for stage in _STAGES]


def test_relations_ignore_comments():
    # evaluation_levels.sql names later stages in its header comment only
    text = sqlfiles.read("evaluation/evaluation_levels.sql")
    assert "evaluation_pairs" in text
    assert sqlfiles.relations("evaluation/evaluation_levels.sql", _STAGES) == set()


def test_only_the_stages_a_family_reads_are_built():
    recorder = _Recorder()
    run_stages(recorder, _stage_files(), stages_read(["metrics/metric_precision.sql"]))
    # precision reads pairs, ranks and topics; pairs is built from levels and lists
    assert recorder.created == [
        "evaluation_levels", "evaluation_ranks", "evaluation_lists", "evaluation_pairs", "evaluation_topics",
    ]
    recorder = _Recorder()
    run_stages(recorder, _stage_files(), stages_read(["metrics/metric_qmeasure.sql"]))
    assert "evaluation_relevant_ranks" in recorder.created and "evaluation_gains" in recorder.created
    assert "evaluation_gain_maxima" not in recorder.created and "evaluation_intents" not in recorder.created
    recorder = _Recorder()
    run_stages(recorder, _stage_files())  # no selection: every stage, in order
    assert recorder.created == list(_STAGES)


def test_every_stage_a_family_reads_is_a_stage():
    """The dependency scan finds a table only by its exact name: each family must read at
    least the pairs it scores, and nothing outside the stages, the requests and preferences."""
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
    assert not left & set(_STAGES) and "requested_measures" not in left


def test_means_into(campaign):
    measures = [parse("P@2"), parse("NumRet"), parse("GMAP")]
    compute_into(campaign, "c", measures, runs=["r"])
    campaign.execute(f"create temp view evaluation_scores as select * from {VALUES_TABLE}")
    means_into(campaign, measures, "summary")
    got = dict(campaign.execute("select measure, value from summary").fetchall())
    campaign.execute("drop view evaluation_scores")
    assert got["P@2"] == pytest.approx(0.5) and got["NumRet"] == 5.0
    assert got["GMAP"] == pytest.approx(pyeval.evaluate(campaign, "c", ["GMAP"], store=False).means["value"][0])
