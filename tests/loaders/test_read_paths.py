"""The two read paths of run and qrels files (pyeval/loaders/source.py, docs/loading.md "Two read
paths"): the fast path (DuckDB's CSV reader) stores exactly what the general path stores, line
numbers included, and leaves a file it cannot read the same way to the general path."""
from __future__ import annotations

import ast
import gzip
import subprocess
import sys
import warnings

import pytest

import pyeval
from pyeval.loaders import staging
from pyeval.loaders.qrels import read_one as read_qrels
from pyeval.loaders.runs import read_one as read_run

from ..conftest import FIXTURES, IMPORTED_BY_DUCKDB, read_path, snapshot

QRELS = b"301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n"

RUN = b"301 Q0 d1 1 2.5 A\n301 Q0 d2 2 1.5 A\n302 Q0 d1 1 0.5 A\n"

#: name: (file content, whether the fast path takes it)
RUN_FILES = {
    "lf": (RUN, True),
    "crlf": (RUN.replace(b"\n", b"\r\n"), True),
    "byte-order mark": (b"\xef\xbb\xbf" + RUN, True),
    "byte-order mark and crlf": (b"\xef\xbb\xbf" + RUN.replace(b"\n", b"\r\n"), True),
    "no final newline": (RUN.rstrip(b"\n"), True),
    "trailing space": (RUN.replace(b"A\n", b"A \n"), True),
    "tab separated": (RUN.replace(b" ", b"\t"), True),
    "tab separated, padded numbers": (b"301\tQ0\td1\t1\t  2.5\tA\n301\tQ0\td2\t 2 \t1.5  \tA\n", True),
    "score forms": (
        b"301 Q0 d1 1 +1e3 A\n301 Q0 d2 2 -0 A\n301 Q0 d3 3 0.1000000000000000055511151231257827 A\n"
        b"301 Q0 d4 4 .5 A\n301 Q0 d5 5 7. A\n301 Q0 d6 6 -1.5E-3 A\n301 Q0 d7 7 1e-400 A\n"
        b"301 Q0 d8 8 123456789012345678901234567890 A\n",
        True,
    ),
    "rank forms": (b"301 Q0 d1 +1 1 A\n301 Q0 d2 01 1 A\n301 Q0 d3 -0 1 A\n301 Q0 d4 -7 1 A\n", True),
    "quote characters": (b'301 Q0 "d1 1 2.5 A\n301 Q0 d2" 2 1.5 A\n', True),
    "a second byte-order mark is data": (b"\xef\xbb\xbf\xef\xbb\xbf" + RUN, True),
    "tags differ": (RUN.replace(b"0.5 A", b"0.5 B"), True),
    "duplicate document": (RUN + b"301 Q0 d1 3 0.1 A\n", True),
    "blank line in the middle": (RUN.replace(b"A\n", b"A\n\n", 1), False),
    "blank lines at the end": (RUN + b"\n\n", False),
    "blank first line": (b"\n" + RUN, False),
    "crlf blank line": (RUN.replace(b"\n", b"\r\n").replace(b"A\r\n", b"A\r\n\r\n", 1), False),
    "line of spaces": (RUN.replace(b"A\n", b"A\n   \n", 1), False),
    "comment": (b"# a comment\n" + RUN, False),
    "comment of six fields": (b"# a b c d e\n" + RUN, False),
    "tab inside a space-separated field": (RUN.replace(b"d2", b"d\t2"), False),
    "space inside a tab-separated field": (b"301\tQ0\td1\t1\t2.5\tA more junk\n301\tQ0\td2\t2\t1.5\tA\n", False),
    "run of spaces": (RUN.replace(b"Q0 d2", b"Q0  d2"), False),
    "empty field": (b"301\tQ0\t\t1\t2.5\tA\n", False),
    "missing last field": (RUN.replace(b"0.5 A", b"0.5 "), False),
    "extra fields": (RUN.replace(b"1.5 A", b"1.5 A x y"), False),
    "lone CR": (RUN.replace(b"\n", b"\r"), False),
    "CR CR LF": (RUN.replace(b"\n", b"\r\r\n"), False),
    "mixed line ends": (RUN.replace(b"\n", b"\r\n", 1), False),
    "vertical tab": (RUN.replace(b"d2", b"d2\x0b"), False),
    "0x1F": (RUN.replace(b"d2", b"d\x1f2"), False),
    "NUL": (RUN.replace(b"d2", b"d\x002"), False),
    "not UTF-8": (RUN.replace(b"d2", b"d\xff2"), False),
    "infinite score": (RUN.replace(b"1.5", b"inf"), False),
    "not-a-number score": (RUN.replace(b"1.5", b"nan"), False),
    "overflowing score": (RUN.replace(b"1.5", b"1e999"), False),
    "score with an underscore": (RUN.replace(b"1.5", b"1_000"), False),
    "hexadecimal score": (RUN.replace(b"1.5", b"0x10"), False),
    "sign-sign score": (RUN.replace(b"1.5", b"+-1"), False),
    "decimal rank": (RUN.replace(b"d2 2", b"d2 2.0"), False),
    "rank with an exponent": (RUN.replace(b"d2 2", b"d2 2e0"), False),
    "rank with an underscore": (RUN.replace(b"d2 2", b"d2 2_0"), False),
    "hexadecimal rank": (RUN.replace(b"d2 2", b"d2 0x2"), False),
    "overflowing rank": (RUN.replace(b"d2 2", b"d2 99999999999999999999"), False),
}

QRELS_FILES = {
    "trec": (b"301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n302 0 d3 -2\n", True),
    "trec diversity": (b"301 1 d1 1\n301 2 d1 0\n302 1 d1 2\n", True),
    "crlf and byte-order mark": (b"\xef\xbb\xbf301 0 d1 1\r\n301 0 d2 +1\r\n302 0 d1 02\r\n", True),
    "tab separated": (b"301\t0\td1\t1\n301\t0\td2\t0\n", True),
    "duplicate judgment": (b"301 0 d1 1\n301 0 d2 0\n301 0 d1 0\n", True),
    "blank line": (b"301 0 d1 1\n\n301 0 d2 0\n", False),
    "comment": (b"# judged by NIST\n301 0 d1 1\n", False),
    "level not an integer": (b"301 0 d1 1\n301 0 d2 1.5\n", False),
    "ntcir diversity levels": (b"1 1 d1 L1\n1 2 d1 L0\n", False),
    "five fields": (b"301 0 d1 1\n301 0 d2 0 x\n", False),
    "three fields": (b"301 d1 L1\n", False),
}


#: The cases also read gzip-compressed (decompressed by both readers alike).
GZIP_CASES = ("lf", "crlf", "byte-order mark", "no final newline", "tab separated, padded numbers",
              "duplicate document", "blank line in the middle", "lone CR", "CR CR LF", "not UTF-8",
              "trec", "trec diversity", "blank line")


def _general_only(monkeypatch):
    """Send every file down the general path."""
    monkeypatch.setattr(staging, "stage_files", lambda *args, **kwargs: {})


def _takes_fast_path(read, *args) -> bool:
    try:
        return read_path(read, *args).typed
    except pyeval.InputFormatError:  # the general path's reader refuses the file
        return False


def _temporary_relations(con) -> list[tuple]:
    return con.execute(
        "select table_name from duckdb_tables() where temporary union all "
        "select view_name from duckdb_views() where temporary and not internal order by 1"
    ).fetchall()


def _run_outcome(con, campaign: str, path) -> tuple:
    """What loading ``path`` into ``campaign`` stores (or the error and warnings it gives)."""
    pyeval.load_qrels(con, campaign, FIXTURES / "trec_eval" / "qrels.test")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = pyeval.load_run(con, campaign, path)
        except pyeval.PyevalError as error:
            return type(error).__name__, str(error)
    stored = con.execute(
        "select topic_id, doc_id, rank_given, score, file_position, trec_rank from run_entries "
        "where campaign_id = $c order by file_position",
        {"c": campaign},
    ).fetchall()
    run = con.execute(
        "select run_id, run_tag, source_file, source_sha256 from runs where campaign_id = $c", {"c": campaign}
    ).fetchall()
    # repr tells -0.0 from 0.0
    summary = report.summary().removeprefix(f"{campaign}: ")
    return repr(stored), run, summary, report.tags, [str(w.message) for w in caught]


def _qrels_outcome(con, campaign: str, path) -> tuple:
    try:
        report = pyeval.load_qrels(con, campaign, path)
    except pyeval.PyevalError as error:
        return type(error).__name__, str(error)
    stored = con.execute(
        "select topic_id, intent_id, doc_id, level from qrels where campaign_id = $c order by all", {"c": campaign}
    ).fetchall()
    inputs = con.execute(
        "select source_file, source_sha256, row_count from campaign_inputs where campaign_id = $c", {"c": campaign}
    ).fetchall()
    kind = con.execute(
        "select qrels_kind, qrels_format from campaigns where campaign_id = $c", {"c": campaign}
    ).fetchall()
    topics = con.execute("select topic_id from topics where campaign_id = $c order by 1", {"c": campaign}).fetchall()
    return stored, inputs, kind, topics, report.summary().removeprefix(f"{campaign}: ")


def _write(tmp_path, name: str, content: bytes, compressed: bool):
    path = tmp_path / name
    path.write_bytes(gzip.compress(content) if compressed else content)
    return path


@pytest.mark.parametrize(
    "name,compressed",
    [(name, False) for name in RUN_FILES] + [(name, True) for name in GZIP_CASES if name in RUN_FILES],
)
def test_run_files_store_the_same_on_both_paths(con, tmp_path, monkeypatch, name, compressed):
    content, fast = RUN_FILES[name]
    path = _write(tmp_path, "run.txt", content, compressed)
    assert _takes_fast_path(read_run, path) is fast
    before = _temporary_relations(con)
    by_fast_path = _run_outcome(con, "c", path)
    assert _temporary_relations(con) == before
    _general_only(monkeypatch)
    by_general_path = _run_outcome(con, "d", path)
    assert by_fast_path == by_general_path


@pytest.mark.parametrize(
    "name,compressed",
    [(name, False) for name in QRELS_FILES] + [(name, True) for name in GZIP_CASES if name in QRELS_FILES],
)
def test_qrels_files_store_the_same_on_both_paths(con, tmp_path, monkeypatch, name, compressed):
    content, fast = QRELS_FILES[name]
    path = _write(tmp_path, "qrels.txt", content, compressed)
    assert _takes_fast_path(read_qrels, path, "auto") is fast
    before = _temporary_relations(con)
    by_fast_path = _qrels_outcome(con, "c", path)
    assert _temporary_relations(con) == before
    _general_only(monkeypatch)
    assert by_fast_path == _qrels_outcome(con, "d", path)


def test_line_numbers_are_the_file_s(con, write):
    pyeval.load_qrels(con, "t", write("q.txt", QRELS))
    pyeval.load_run(con, "t", write("fast.txt", RUN), name="fast")
    general = write("general.txt", b"# comment\n" + RUN.replace(b"A\n", b"A\n\n", 1))
    pyeval.load_run(con, "t", general, name="general")
    positions = con.execute(
        "select run_id, list(file_position order by file_position) from run_entries group by 1 order by 1"
    ).fetchall()
    assert positions == [("fast", [1, 2, 3]), ("general", [2, 4, 5])]


def test_duplicates_name_their_lines(con, write):
    pyeval.load_qrels(con, "t", write("q.txt", QRELS))
    run = write("r.txt", RUN + b"302 Q0 d2 2 0.4 A\n301 Q0 d2 3 0.1 A\n")
    assert read_path(read_run, run).typed
    message = rf"^{run}:5: document 'd2' retrieved twice for topic '301' \(first on line 2\)$"
    with pytest.raises(pyeval.InputFormatError, match=message):
        pyeval.load_run(con, "t", run)
    qrels = write("q2.txt", b"301\t0\td1\t1\n301\t0\td2\t0\n301\t0\td1\t0\n")
    assert read_path(read_qrels, qrels, "auto").typed
    message = rf"^{qrels}:3: duplicate judgment of document 'd1' for topic '301' \(first on line 1\)$"
    with pytest.raises(pyeval.InputFormatError, match=message):
        pyeval.load_qrels(con, "u", qrels)


def test_a_failed_load_leaves_warehouse_and_connection_as_they_were(con, write):
    pyeval.load_qrels(con, "t", write("q.txt", QRELS))
    con.execute("create temp table mine as select 1 as x")  # the user's own stay
    before, relations = snapshot(con), _temporary_relations(con)
    fast, general = write("a.txt", RUN), write("b.txt", b"# comment\n" + RUN)
    duplicate = write("c.txt", RUN + b"301 Q0 d1 3 0.1 C\n")
    bad = write("d.txt", b"301 Q0 d1 1 abc D\n")
    for sources in ([fast, general, duplicate], [fast, bad], [general, fast, fast], [fast, FIXTURES / "missing.txt"]):
        with pytest.raises(pyeval.PyevalError):
            pyeval.load_runs(con, "t", sources)
        assert snapshot(con) == before and _temporary_relations(con) == relations
    with pytest.raises(pyeval.UnknownCampaignError):
        pyeval.load_run(con, "nowhere", fast)
    with pytest.raises(pyeval.InputFormatError):
        pyeval.load_qrels(con, "t", write("q2.txt", b"301 0 d1 1\n301 0 d1 1\n"), replace=True)
    with pytest.raises(pyeval.DataIntegrityError):
        pyeval.load_qrels(con, "t", write("q3.txt", QRELS))
    assert snapshot(con) == before and _temporary_relations(con) == relations
    reports = pyeval.load_runs(con, "t", [fast, general], names=["a", "b"])
    assert [r.rows for r in reports] == [3, 3] and _temporary_relations(con) == relations


def test_a_path_with_glob_characters_is_read_as_named(con, tmp_path):
    # DuckDB's read_csv would read run[1].txt as the pattern run[1].txt, matching run1.txt
    (tmp_path / "run1.txt").write_bytes(RUN.replace(b" A\n", b" other\n"))
    named = tmp_path / "run[1].txt"
    named.write_bytes(RUN)
    pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    assert pyeval.load_run(con, "t", named).name == "A"


def test_without_insertion_order_the_general_path_reads(con, write):
    path = write("r.txt", RUN)
    con.execute("set preserve_insertion_order = false")
    try:
        with staging.TemporaryRelations(con) as relations:
            assert not read_run(path, relations).typed
    finally:
        con.execute("set preserve_insertion_order = true")


def test_the_fast_path_imports_neither_pandas_nor_pyarrow_nor_numpy():
    code = (
        "import sys, pyeval, pyeval.loaders\n"
        f"fixtures = {str(FIXTURES / 'trec_eval')!r}\n"
        "con = pyeval.connect()\n"
        "pyeval.load_qrels(con, 't', fixtures + '/qrels.test')\n"
        "pyeval.load_run(con, 't', fixtures + '/results.test', name='r')\n"
        "assert con.execute('select count(*) from run_entries').fetchone()[0] == 1500\n"
        "print(sorted({'pandas', 'pyarrow', 'numpy'} & set(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(ast.literal_eval(result.stdout.strip())) - IMPORTED_BY_DUCKDB == set()  # before DuckDB 2.0: its own
    assert read_path(read_run, FIXTURES / "trec_eval" / "results.test").typed
    assert read_path(read_qrels, FIXTURES / "trec_eval" / "qrels.test", "auto").typed
