"""One rule for identifiers through the Python API: whitespace separates the fields of a TREC
file, so an identifier given in memory holding any (``" 1"``, ``"d "``, a tab) is refused naming
its row, in every shape of qrels and run; never stripped on one side only (AP was 0.0 for
``calc_aggregate(["AP"], {" 1": {"d": 1}}, {" 1": {"d": 1.0}})``)."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import InputFormatError

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import Qrel, ScoredDoc  # noqa: E402

GOOD_QRELS = [("1", "d", 1, "0"), ("2", "e", 1, "0")]
GOOD_RUN = [("1", "d", 1.0), ("2", "e", 0.5)]


def _qrels_shapes(rows):
    mapping = {}
    for query, doc, level, _ in rows:
        mapping.setdefault(query, {})[doc] = level
    return {"dict": mapping, "namedtuples": [Qrel(*row) for row in rows],
            "frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "iteration"])}


def _run_shapes(rows):
    mapping = {}
    for query, doc, score in rows:
        mapping.setdefault(query, {})[doc] = score
    return {"dict": mapping, "namedtuples": [ScoredDoc(*row) for row in rows],
            "frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])}


BAD = [(" 1", "query_id"), ("1 ", "query_id"), ("1\t", "query_id")]


@pytest.mark.parametrize("shape", ["dict", "namedtuples", "frame"])
@pytest.mark.parametrize("value,field", BAD + [("d ", "doc_id"), ("\nd", "doc_id")])
def test_run_identifier_with_whitespace_is_refused_in_every_shape(shape, value, field):
    rows = [("2", "e", 0.5), (value, "d", 1.0) if field == "query_id" else ("1", value, 1.0)]
    with pytest.raises(InputFormatError, match=r"<run>:2: .*holds whitespace"):
        pyeval.calc_aggregate(["AP"], _qrels_shapes(GOOD_QRELS)["dict"], _run_shapes(rows)[shape])


@pytest.mark.parametrize("shape", ["dict", "namedtuples", "frame"])
@pytest.mark.parametrize("value,field", BAD + [("d ", "doc_id"), ("iteration", "iteration")])
def test_qrels_identifier_with_whitespace_is_refused_in_every_shape(shape, value, field):
    if field == "iteration" and shape == "dict":
        pytest.skip("a dict has no iteration")
    rows = [("2", "e", 1, "0"), {"query_id": (value, "d", 1, "0"), "doc_id": ("1", value, 1, "0"),
                                 "iteration": ("1", "d", 1, "a b")}[field]]
    with pytest.raises(InputFormatError, match=r"<(qrels|DataFrame)>:2: .*holds whitespace"):
        pyeval.calc_aggregate(["AP"], _qrels_shapes(rows)[shape], _run_shapes(GOOD_RUN)["dict"])


def test_the_issue_case_is_an_error_not_zero():
    with pytest.raises(InputFormatError, match="query_id ' 1' holds whitespace"):
        pyeval.calc_aggregate(["AP"], {" 1": {"d": 1}}, {" 1": {"d": 1.0}})


def test_qrels_file_fields_are_split_on_whitespace(tmp_path):
    """A file's fields are what whitespace separates, so its identifiers never hold any: the
    same qrels as a file and in memory give the same values."""
    path = tmp_path / "qrels.txt"
    path.write_text("1\t0  d 1\n2 0 e 1\n")
    assert pyeval.calc_aggregate(["AP"], str(path), _run_shapes(GOOD_RUN)["dict"]) == \
        pyeval.calc_aggregate(["AP"], _qrels_shapes(GOOD_QRELS)["dict"], _run_shapes(GOOD_RUN)["dict"]) == {"AP": 1.0}
