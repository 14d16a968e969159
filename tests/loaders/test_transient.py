"""Reading a qrels file and a run for one evaluation that stores nothing (pyeval/loaders/transient.py):
the rows the loaders store, or nothing when the loaders would refuse or warn."""
from __future__ import annotations

import pytest

from pyeval.loaders import load_qrels, load_run, transient
from pyeval.storage import warehouse

from ..conftest import FIXTURES

TREC = FIXTURES / "trec_eval"
QRELS = "select campaign_id, judgment_set, topic_id, intent_id, doc_id, level from qrels_by_set order by all"
ENTRIES = ("select campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank "
           "from run_entries order by all")


def _stored(con) -> tuple[list, list]:
    return con.execute(QRELS).fetchall(), con.execute(ENTRIES).fetchall()


@pytest.mark.parametrize("qrels,run", [("qrels.test", "results.test"), ("qrels.rel_level", "results.test")])
def test_the_rows_the_loaders_store(qrels, run):
    """results.test pads its scores with spaces in TAB-separated fields (the fast path's spaced layout)."""
    loaded = warehouse.scratch(warehouse.LOADED_TABLES)
    load_qrels(loaded, "c", TREC / qrels, format="trec")
    load_run(loaded, "c", TREC / run, name="r")
    staged = warehouse.scratch(transient.TABLES)
    assert transient.stage_pair(staged, "c", TREC / qrels, TREC / run, "r")
    assert _stored(staged) == _stored(loaded)
    assert len(_stored(staged)[1]) > 500


@pytest.mark.parametrize("qrels,run", [
    ("1 0 a 1\n1 0 b x\n", "1 Q0 a 1 2.0 t\n"),  # a level that is not an integer
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 2.0 t\n"),  # a judgment given twice
    ("# judged by\n1 0 a 1\n", "1 Q0 a 1 2.0 t\n"),  # a comment: the general path reads it
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n"),  # a document retrieved twice
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 u\n"),  # two run tags: load_run warns
    ("1 0 a 1\n", "1 Q0 a 1 inf t\n"),  # a score that is no finite number
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n\n1 Q0 b 2 1.0 t\n"),  # a blank line
    ("1 0 a 1\n", ""),  # a run that retrieved nothing
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t extra\n"),  # more than 6 fields: the general path reads it
])
def test_nothing_is_stored_when_the_loaders_would_say_something(tmp_path, qrels, run):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    con = warehouse.scratch(transient.TABLES)
    assert not transient.stage_pair(con, "c", tmp_path / "q", tmp_path / "r", "r")
    assert _stored(con) == ([], [])
