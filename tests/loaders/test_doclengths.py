"""Loading document lengths (pyeval/loaders/doclengths.py)."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import DataIntegrityError

from ..conftest import FIXTURES


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    return con


def test_lengths_with_comments_and_identical_duplicates(campaign, write):
    path = write("len.txt", "# lengths\nd1 1200\nd2 0\nd1 1200\n")
    report = pyeval.load_doclengths(campaign, "t", path)
    assert report.rows == 2
    assert campaign.execute("select doc_id, length from document_lengths order by 1").fetchall() == [
        ("d1", 1200), ("d2", 0)
    ]


def test_conflicting_lengths_name_both_lines(campaign, write):
    path = write("len.txt", "d1 1200\nd2 5\nd1 1300\n")
    with pytest.raises(pyeval.InputFormatError, match=r"len\.txt:3: document 'd1' has length 1300 here but 1200 on line 1"):
        pyeval.load_doclengths(campaign, "t", path)


def test_replace(campaign, write):
    pyeval.load_doclengths(campaign, "t", write("a.txt", "d1 1\n"))
    with pytest.raises(DataIntegrityError):
        pyeval.load_doclengths(campaign, "t", write("b.txt", "d2 2\n"))
    pyeval.load_doclengths(campaign, "t", write("b.txt", "d2 2\n"), replace=True)
    assert campaign.execute("select doc_id from document_lengths").fetchall() == [("d2",)]


def test_dataframe_lengths(campaign):
    pyeval.load_doclengths(campaign, "t", pd.DataFrame({"doc_id": ["a", "b"], "length": [10, 20]}))
    assert campaign.execute("select sum(length) from document_lengths").fetchall() == [(30,)]
