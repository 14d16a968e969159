"""Loading intents (pyeval/loaders/intents.py)."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import DataIntegrityError, InputWarning

from ..conftest import FIXTURES

NTCIR = FIXTURES / "ntcireval"


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "n", NTCIR / "Dtest.Dqrels")
    return con


def test_iprob_defaults_to_informational(campaign):
    report = pyeval.load_intents(campaign, "n", NTCIR / "Dtest.Iprob")
    assert (report.rows, report.topics) == (10, 3)
    assert campaign.execute("select distinct intent_type from intents").fetchall() == [("inf",)]
    assert campaign.execute(
        "select probability from intents where topic_id = '0002' order by intent_id"
    ).fetchall() == [(0.5333,), (0.2667,), (0.1333,), (0.0667,)]


@pytest.mark.parametrize("name", ["Dtest.DINprob", "test.DINprob"])
def test_dinprob_types(campaign, name):
    pyeval.load_intents(campaign, "n", NTCIR / name)
    assert campaign.execute(
        "select intent_id, intent_type from intents where topic_id = '0001' order by 1"
    ).fetchall() == [("1", "nav"), ("2", "nav"), ("3", "inf")]


def test_intent_missing_from_file_is_refused(campaign, write):
    # topic 0002 has relevant documents for intents 3 and 4
    path = write("p.txt", "0002 1 0.5\n0002 3 0.5\n")
    with pytest.raises(pyeval.InputFormatError, match="intent '4' of topic '0002' is judged relevant"):
        pyeval.load_intents(campaign, "n", path)


def test_qrels_after_intents_must_use_known_intents(con, write):
    pyeval.load_qrels(con, "n", write("q.txt", "1 1 d1 1\n1 2 d2 1\n"))
    pyeval.load_intents(con, "n", write("p.txt", "1 1 0.5\n1 2 0.5\n"))
    with pytest.raises(pyeval.InputFormatError, match=r"q2\.txt:2: intent '7' of topic '1' is not among"):
        pyeval.load_qrels(con, "n", write("q2.txt", "1 1 d1 1\n1 7 d2 1\n"), replace=True)


def test_probabilities_not_summing_to_one_warn(campaign, write):
    with pytest.warns(InputWarning, match="do not sum to 1"):
        pyeval.load_intents(campaign, "n", write("p.txt", "0003 1 0.5\n0003 2 0.1\n0003 3 0.1\n"))


def test_replace(campaign):
    pyeval.load_intents(campaign, "n", NTCIR / "Dtest.Iprob")
    with pytest.raises(DataIntegrityError, match="already has intents"):
        pyeval.load_intents(campaign, "n", NTCIR / "Dtest.DINprob")
    pyeval.load_intents(campaign, "n", NTCIR / "Dtest.DINprob", replace=True)
    assert campaign.execute("select count(*) from intents where intent_type = 'nav'").fetchall() == [(7,)]


def test_dataframe_intents(campaign):
    frame = pd.DataFrame(
        {"query_id": ["0003"] * 3, "intent_id": ["1", "2", "3"], "prob": [0.5, 0.25, 0.25],
         "intent_type": ["nav", "inf", "inf"]}
    )
    pyeval.load_intents(campaign, "n", frame)
    assert campaign.execute("select intent_id, probability, intent_type from intents order by 1").fetchall() == [
        ("1", 0.5, "nav"), ("2", 0.25, "inf"), ("3", 0.25, "inf")
    ]
