"""Loading runs (pyeval/loaders/runs.py, sql/loaders/run_*.sql)."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import DataIntegrityError, InputWarning, UnknownCampaignError

from ..conftest import FIXTURES, read_path

TREC = FIXTURES / "trec_eval"


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    return con


def test_tab_separated_run_named_by_its_tag(campaign):
    con = campaign
    report = pyeval.load_run(con, "t", TREC / "results.test")
    assert (report.name, report.rows, report.topics) == ("STANDARD", 1500, 3)
    stored = con.execute(
        "select topic_id, doc_id, rank_given, score, file_position from run_entries "
        "order by file_position limit 2"
    ).fetchall()
    first_line = (TREC / "results.test").read_text().splitlines()[0].split("\t")
    assert stored[0] == (first_line[0], first_line[2], int(first_line[3]), float(first_line[4]), 1)
    assert con.execute("select run_tag, source_sha256 from runs").fetchall() == [("STANDARD", report.sha256)]


def test_extra_columns_ignored_and_missing_topics_reported(campaign):
    report = pyeval.load_run(campaign, "t", TREC / "results.trunc", name="trunc")
    assert report.rows == 584 and report.topics == 2
    assert "1 judged topic is missing from it (it scores 0)" in report.notes


def test_scores_parse_to_the_nearest_double(campaign, write):
    path = write("r.txt", "301 Q0 a 1 0.1 x\n301 Q0 b 2 1e-3 x\n301 Q0 c 3 -2.28234 x\n301 Q0 d 4 7 x\n")
    pyeval.load_run(campaign, "t", path)
    scores = [r[0] for r in campaign.execute("select score from run_entries order by file_position").fetchall()]
    assert scores == [float("0.1"), float("1e-3"), float("-2.28234"), 7.0]


def test_several_files_one_transaction(campaign, write):
    a = write("a.txt", "301 Q0 d1 1 2.0 A\n")
    b = write("b.txt", "301 Q0 d1 1 2.0 B\n")
    reports = pyeval.load_runs(campaign, "t", [a, b])
    assert [r.name for r in reports] == ["A", "B"]
    bad = write("c.txt", "301 Q0 d1 1 2.0 C\n301 Q0 d1 2 1.0 C\n")
    with pytest.raises(pyeval.InputFormatError):
        pyeval.load_runs(campaign, "t", [write("ok.txt", "301 Q0 d1 1 1 OK\n"), bad])
    assert campaign.execute("select run_id from runs order by 1").fetchall() == [("A",), ("B",)]


def test_same_tag_twice_needs_names(campaign, write):
    a = write("a.txt", "301 Q0 d1 1 2.0 indri\n")
    b = write("b.txt", "301 Q0 d2 1 2.0 indri\n")
    with pytest.raises(DataIntegrityError, match="loaded twice"):
        pyeval.load_runs(campaign, "t", [a, b])
    pyeval.load_runs(campaign, "t", [a, b], names=["ql", "rm"])
    assert campaign.execute("select run_id, run_tag from runs order by 1").fetchall() == [
        ("ql", "indri"), ("rm", "indri")
    ]


def test_replace(campaign, write):
    pyeval.load_run(campaign, "t", write("a.txt", "301 Q0 d1 1 2.0 A\n301 Q0 d2 2 1.0 A\n"))
    with pytest.raises(DataIntegrityError, match="already has a run named 'A'"):
        pyeval.load_run(campaign, "t", write("b.txt", "301 Q0 d9 1 2.0 A\n"))
    pyeval.load_run(campaign, "t", write("b.txt", "301 Q0 d9 1 2.0 A\n"), replace=True)
    assert campaign.execute("select doc_id from run_entries").fetchall() == [("d9",)]


def test_unknown_campaign(con, write):
    with pytest.raises(UnknownCampaignError, match="campaign 'nope' does not exist"):
        pyeval.load_run(con, "nope", write("a.txt", "301 Q0 d1 1 2.0 A\n"))


def test_differing_tags_warn(campaign, write):
    with pytest.warns(InputWarning, match="2 different run tags"):
        report = pyeval.load_run(campaign, "t", write("a.txt", "301 Q0 d1 1 2.0 A\n301 Q0 d2 2 1 B\n"))
    assert report.name == "A"  # the first line's tag, as ndeval


def test_comments_and_blank_lines_are_skipped(campaign, write):
    path = write("a.txt", "# header\n\n301 Q0 d1 1 2.0 A\n   # indented comment\n301 Q0 d2 2 1.0 A\n\n")
    pyeval.load_run(campaign, "t", path)
    assert campaign.execute("select doc_id, file_position from run_entries order by 2").fetchall() == [
        ("d1", 3), ("d2", 5)
    ]


def test_dataframe_run_without_rank(campaign):
    frame = pd.DataFrame({"query_id": ["301", "301", "302"], "doc_id": ["a", "b", "a"], "score": [0.5, 0.25, 1.0]})
    report = pyeval.load_run(campaign, "t", frame, name="frame-run")
    assert report.name == "frame-run"
    assert campaign.execute("select topic_id, doc_id, rank_given, score from run_entries order by all").fetchall() == [
        ("301", "a", 1, 0.5), ("301", "b", 2, 0.25), ("302", "a", 1, 1.0)
    ]


def test_dataframe_run_without_rank_is_ranked_by_its_scores(campaign):
    """Not by its row order: score descending, then docno descending (trec_eval's order)."""
    frame = pd.DataFrame({"query_id": ["301", "301", "301", "302"], "doc_id": ["a", "c", "b", "a"],
                          "score": [0.25, 0.5, 0.5, 1.0]}, index=[7, 3, 5, 1])
    pyeval.load_run(campaign, "t", frame, name="shuffled")
    assert campaign.execute("select topic_id, doc_id, rank_given from run_entries order by all").fetchall() == [
        ("301", "a", 3), ("301", "b", 2), ("301", "c", 1), ("302", "a", 1)
    ]


def test_dataframe_run_without_rank_has_the_api_file_order(campaign):
    """Its file order is its scores' order too (sql/loaders/run_insert.sql), so measures that read
    file order (NTCIREVAL's and cwl_eval's) give what the Python API gives for the same frame."""
    frame = pd.read_csv(TREC / "results.test", sep=r"\s+", header=None, dtype={0: str, 2: str},
                        names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    frame = frame[["query_id", "doc_id", "score"]].sample(frac=1.0, random_state=5).reset_index(drop=True)
    pyeval.load_run(campaign, "t", frame, name="shuffled")
    assert campaign.execute(  # within each topic, file order = rank = trec_eval's order
        "select count(*) from (select rank_given, trec_rank, row_number() over (partition by topic_id "
        "order by file_position) as in_file from run_entries) where in_file <> trec_rank or rank_given <> trec_rank"
    ).fetchone() == (0,)
    measures = ["INST", "RBP(p=0.8)", "AP", "Q", "ERR@20"]
    pyeval.evaluate(campaign, "t", measures, runs=["shuffled"])
    stored = dict(campaign.execute("select measure, avg(value) from scores where run_id = 'shuffled' "
                                   "group by measure").fetchall())
    qrels = campaign.execute("select topic_id as query_id, doc_id, level as relevance from qrels").df()
    expected = pyeval.calc_aggregate(measures, qrels, frame)
    assert len(stored) == len(expected) == len(measures), (stored, expected)
    for name in measures:
        assert stored[str(pyeval.parse_measure(name))] == pytest.approx(expected[name], abs=1e-12), name


def test_dataframe_run_without_rank_names_its_own_bad_row(campaign):
    frame = pd.DataFrame({"query_id": ["301", "301", "301"], "doc_id": ["a", "b", "c"],
                          "score": ["0.5", "x", "0.9"]})
    with pytest.raises(pyeval.InputFormatError, match=r"<DataFrame>:2: .*score 'x'"):
        pyeval.load_run(campaign, "t", frame, name="bad")
    assert campaign.execute("select count(*) from run_entries").fetchone() == (0,)


def test_dataframe_run_pyterrier_columns(campaign):
    frame = pd.DataFrame({"qid": ["301"], "docno": ["x"], "score": [3.0], "rank": [0]})
    pyeval.load_run(campaign, "t", frame, name="pt")
    assert campaign.execute("select doc_id, rank_given from run_entries").fetchall() == [("x", 0)]


def test_score_must_be_a_plain_decimal(campaign, write):
    # DuckDB would read 1_000 as 1000; C strtod (trec_eval) stops at the underscore
    with pytest.raises(pyeval.InputFormatError, match="score '1_000' is not a finite number"):
        pyeval.load_run(campaign, "t", write("a.txt", "301 Q0 d1 1 1_000 A\n"))
    pyeval.load_run(campaign, "t", write("b.txt", "301 Q0 d1 1 -1.5E+2 B\n301 Q0 d2 2 .5 B\n301 Q0 d3 3 7. B\n"))
    assert [r[0] for r in campaign.execute("select score from run_entries order by file_position").fetchall()] == [
        -150.0, 0.5, 7.0
    ]


def test_fast_and_general_paths_store_the_same_rows(tmp_path):
    from pyeval.loaders.runs import read_one as read_run

    text = (TREC / "results.test").read_text()
    fast = tmp_path / "fast.txt"
    fast.write_text(text)
    general = tmp_path / "general.txt"  # a comment line sends the file down the general path
    general.write_text("# comment\n" + text)
    assert read_path(read_run, fast).typed and not read_path(read_run, general).typed
    stored = []
    for path in (fast, general):
        con = pyeval.connect()
        pyeval.load_qrels(con, "t", TREC / "qrels.test")
        pyeval.load_run(con, "t", path, name="r")
        stored.append(con.execute(
            "select topic_id, doc_id, rank_given, score, file_position - min(file_position) over () "
            "from run_entries order by all"
        ).fetchall())
        con.close()
    assert stored[0] == stored[1]


def test_tab_file_with_spaces_inside_a_field_takes_the_general_path(campaign):
    from pyeval.loaders.runs import read_one as read_run

    assert not read_path(read_run, TREC / "results.trunc").typed  # "STANDARD more junk at": tag STANDARD
    pyeval.load_run(campaign, "t", TREC / "results.trunc", name="trunc")
    assert campaign.execute("select distinct run_tag from runs").fetchall() == [("STANDARD",)]


@pytest.mark.parametrize(
    "text,message",
    [
        ("301 Q0 d1 1 2.0 A\n301  d2 2 1.0 A\n", "2: expected at least 6 fields"),  # empty field
        ("301\tQ0\t\t1\t2.0\tA\n", "1: expected at least 6 fields"),
        ("301 Q0 d1 1 1e999 A\n", "1: score '1e999' is not a finite number"),
    ],
)
def test_fast_path_never_accepts_what_the_general_path_refuses(campaign, write, text, message):
    path = write("odd.txt", text)
    with pytest.raises(pyeval.InputFormatError, match=f"{path}:{message}"):
        pyeval.load_run(campaign, "t", path)


def test_names_do_not_choose_the_decompressor(campaign, tmp_path):
    path = tmp_path / "plain.gz"
    path.write_text("301 Q0 d1 1 2.0 A\n")
    assert pyeval.load_run(campaign, "t", path).rows == 1
    damaged = tmp_path / "damaged.txt.gz"
    damaged.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)
    with pytest.raises(pyeval.InputFormatError, match="cannot read the file"):
        pyeval.load_run(campaign, "t", damaged)
