"""Loading qrels in every format (pyeval/loaders/qrels.py, sql/loaders/qrels_*.sql)."""
from __future__ import annotations

import gzip

import pandas as pd
import pytest

import pyeval
from pyeval.errors import DataIntegrityError

from ..conftest import FIXTURES, read_path


def rows(con, sql):
    return con.execute(sql).fetchall()


def test_trec_qrels(con):
    report = pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    assert (report.rows, report.topics, report.notes) == (3681, 3, ["format trec"])
    assert rows(con, "select qrels_kind, qrels_format from campaigns") == [("adhoc", "trec")]
    # R = 474/77/10 (docs/input-files.md 11.1); ad hoc judgments carry intent ''
    assert rows(
        con,
        "select topic_id, count(*) filter (where level > 0) from qrels group by 1 order by 1",
    ) == [("301", 474), ("302", 77), ("303", 10)]
    assert rows(con, "select distinct intent_id from qrels") == [("",)]
    assert rows(con, "select topic_id from topics order by 1") == [("301",), ("302",), ("303",)]


def test_comments_and_hash_inside_docno(con):
    pyeval.load_qrels(con, "a", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_qrels(con, "b", FIXTURES / "trec_eval" / "qrels.test.with-comments")
    # the file adds three '#' comment lines and writes one docno as CR#93E-1860 (data, not a comment)
    same = (
        "select topic_id, intent_id, replace(doc_id, '#', ''), level from qrels "
        "where campaign_id = $c order by all"
    )
    assert con.execute(same, {"c": "a"}).fetchall() == con.execute(same, {"c": "b"}).fetchall()
    assert rows(con, "select doc_id from qrels where campaign_id = 'b' and doc_id like '%#%'") == [("CR#93E-1860",)]


def test_negative_levels_are_kept_raw(con):
    pyeval.load_qrels(con, "l", FIXTURES / "trec_eval" / "qrels.rel_level")
    levels = dict(rows(con, "select level, count(*) from qrels group by 1"))
    assert levels[-1] == 304 and set(levels) == {-1, 0, 1, 2, 3, 4}


def test_trec_diversity_detected_by_varying_second_field(con, write):
    path = write("div.txt", "1 1 d1 1\n1 2 d1 0\n1 1 d2 0\n1 2 d2 2\n")
    report = pyeval.load_qrels(con, "d", path)
    assert report.notes == ["format trec-diversity"]
    assert rows(con, "select intent_id, doc_id, level from qrels order by all") == [
        ("1", "d1", 1), ("1", "d2", 0), ("2", "d1", 0), ("2", "d2", 2)
    ]


def test_ntcir_adhoc_qrels(con):
    report = pyeval.load_qrels(con, "n", FIXTURES / "ntcireval" / "test.qrels")
    assert report.notes == ["format ntcir"]
    assert rows(con, "select distinct level from qrels order by 1") == [(0,), (1,)]
    assert rows(con, "select topic_id from topics order by 1") == [("0001",), ("0002",), ("0003",)]


@pytest.mark.parametrize("name", ["Dtest.Dqrels", "test.Dqrels"])
def test_ntcir_diversity_qrels_space_or_semicolon(con, name):
    report = pyeval.load_qrels(con, "n", FIXTURES / "ntcireval" / name)
    assert report.notes == ["format ntcir-diversity"]
    # NTCIR's intent 0 / L0 lines mean "relevant to no intent": stored with intent ''
    assert rows(con, "select count(*) from qrels where intent_id = '' and level = 0") == rows(
        con, "select count(*) from qrels where level = 0"
    )
    assert rows(con, "select distinct intent_id from qrels where topic_id = '0002' and level > 0 order by 1") == [
        ("3",), ("4",)
    ]


def test_semicolon_and_space_files_store_the_same_rows():
    stored = []
    for name in ("Dtest.Dqrels", "test.Dqrels"):
        con = pyeval.connect()
        pyeval.load_qrels(con, "n", FIXTURES / "ntcireval" / name)
        stored.append(con.execute("select topic_id, intent_id, doc_id, level from qrels order by all").fetchall())
        con.close()
    assert stored[0] == stored[1]


def test_explicit_format_overrides_detection(con, write):
    # a TREC ad hoc file whose iteration column varies would be read as diversity by 'auto'
    path = write("q.txt", "1 0 d1 1\n1 1 d2 0\n")
    pyeval.load_qrels(con, "q", path, format="trec")
    assert rows(con, "select intent_id, doc_id from qrels order by 2") == [("", "d1"), ("", "d2")]


def test_gzip_input_equals_plain(con, tmp_path):
    plain = FIXTURES / "trec_eval" / "qrels.test"
    packed = tmp_path / "qrels.test.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a = pyeval.load_qrels(con, "a", plain)
    b = pyeval.load_qrels(con, "b", packed)
    assert a.sha256 == b.sha256  # provenance hashes the content, not the compression
    same = "select topic_id, doc_id, level from qrels where campaign_id = $c order by all"
    assert con.execute(same, {"c": "a"}).fetchall() == con.execute(same, {"c": "b"}).fetchall()


def test_provenance_is_recorded(con):
    report = pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test", description="TREC-6")
    assert rows(con, "select description from campaigns") == [("TREC-6",)]
    assert rows(con, "select input_kind, source_sha256, row_count from campaign_inputs") == [
        ("qrels", report.sha256, 3681)
    ]


def test_second_qrels_needs_replace(con, write):
    pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    with pytest.raises(DataIntegrityError, match="already has qrels"):
        pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_qrels(con, "t", write("small.txt", "9 0 d 1\n"), replace=True)
    assert rows(con, "select topic_id, doc_id from qrels") == [("9", "d")]
    assert rows(con, "select topic_id from topics") == [("9",)]
    assert rows(con, "select count(*) from campaign_inputs") == [(1,)]


def test_dataframe_qrels_ir_measures_columns(con):
    frame = pd.DataFrame(
        {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [2, 0, 1]}
    )
    report = pyeval.load_qrels(con, "f", frame)
    assert report.source_file == "<DataFrame>" and report.notes == ["format trec"]
    assert rows(con, "select topic_id, intent_id, doc_id, level from qrels order by all") == [
        ("1", "", "a", 2), ("1", "", "b", 0), ("2", "", "a", 1)
    ]


def test_dataframe_diversity_qrels_use_iteration(con):
    frame = pd.DataFrame(
        {"qid": [1, 1], "docno": ["a", "a"], "label": [1, 0], "iteration": [1, 2]}
    )
    pyeval.load_qrels(con, "f", frame)
    assert rows(con, "select topic_id, intent_id, level from qrels order by all") == [("1", "1", 1), ("1", "2", 0)]


def test_gzip_is_told_by_content_not_name(con, tmp_path):
    packed = tmp_path / "qrels.bin"
    packed.write_bytes(gzip.compress((FIXTURES / "trec_eval" / "qrels.test").read_bytes()))
    assert pyeval.load_qrels(con, "g", packed).rows == 3681


def test_dataframe_constant_iteration_is_ad_hoc(con):
    # ir_datasets gives ad hoc qrels an iteration column of "0": same rule as files
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0], "iteration": ["0", "0"]})
    assert pyeval.load_qrels(con, "f", frame).notes == ["format trec"]
    assert rows(con, "select distinct intent_id from qrels") == [("",)]


def test_dataframe_missing_value_names_the_row(con):
    frame = pd.DataFrame({"query_id": ["1", None], "doc_id": ["a", "b"], "relevance": [1, 0]})
    with pytest.raises(pyeval.InputFormatError, match=r"<DataFrame>:2: column 'query_id' has no value"):
        pyeval.load_qrels(con, "f", frame)


def test_dataframe_round_trip_of_the_qrels_table(con):
    pyeval.load_qrels(con, "a", FIXTURES / "trec_eval" / "qrels.test")
    stored = con.execute("select topic_id, doc_id, level from qrels order by all").df()
    pyeval.load_qrels(con, "b", stored)
    assert rows(con, "select count(*) from qrels where campaign_id = 'b'") == [(3681,)]


def test_fast_and_general_paths_store_the_same_qrels(tmp_path):
    from pyeval.loaders.qrels import read_one as read_qrels

    for name, fmt in (("qrels.test", "trec"), ("qrels.rel_level", "trec")):
        text = (FIXTURES / "trec_eval" / name).read_text()
        fast = tmp_path / "fast.txt"
        fast.write_text(text)
        general = tmp_path / "general.txt"
        general.write_text(text.replace(" ", "  ", 1))  # one double space: general path
        assert read_path(read_qrels, fast, "auto").typed and not read_path(read_qrels, general, "auto").typed
        stored = []
        for path in (fast, general):
            con = pyeval.connect()
            report = pyeval.load_qrels(con, "t", path)
            assert report.notes == [f"format {fmt}"]
            stored.append(con.execute("select * exclude (campaign_id) from qrels order by all").fetchall())
            con.close()
        assert stored[0] == stored[1]
