"""``pyeval trec_eval`` against trec_eval 10.0's own expected outputs (exact text).

Each case is a command of trec_eval's Makefile `quicktest` (tests/fixtures/README.md).
"""
from __future__ import annotations

import ast
import shlex

import pytest
from click.testing import CliRunner

from pyeval.cli import main

from ..conftest import FIXTURES, IMPORTED_BY_DUCKDB

TREC = FIXTURES / "trec_eval"

CASES = [
    ("out.test", "qrels.test results.test"),
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test.gz"),  # gzipped to keep the repo small
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    (
        "out.test.meas_params",
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
    ),
    ("out.test.aqZ", f"-q -m all_trec -Z {TREC / 'zscores_file'} qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
]


def trec_eval(arguments: str):
    words = shlex.split(arguments)
    *options, qrels, results = words
    return CliRunner().invoke(main, ["trec_eval", *options, str(TREC / qrels), str(TREC / results)])


@pytest.mark.parametrize("expected,arguments", CASES, ids=[f"{e}:{a.split()[-2]}" for e, a in CASES])
def test_output_is_byte_identical(expected, arguments):
    result = trec_eval(arguments)
    assert result.exit_code == 0, result.output
    assert result.stdout == (TREC / expected).read_text()


def test_judgment_group_measures_need_their_format():
    assert trec_eval("-m map_avgjg qrels.123 results.test").exit_code == 1
    assert trec_eval("-m map -R qrels_jg qrels.123 results.test").exit_code == 1


def test_preference_measures_need_their_format():
    assert trec_eval("-m prefs_simp qrels.test results.test").exit_code == 1
    assert trec_eval("-m map -R prefs prefs.test prefs.results.test").exit_code == 1
    assert trec_eval("-R qrels_prefs qrels.test results.test").exit_code == 1  # official set


def test_preference_nickname_prefs():
    result = trec_eval("-m prefs -R prefs prefs.test prefs.results.test")
    assert result.exit_code == 0, result.output
    labels = [line.split("\t")[0].rstrip() for line in result.stdout.splitlines()]
    assert labels == ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                      "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"]


def test_malformed_prefs_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.prefs"
    bad.write_text("1 g s d1 1\n1 g s d2\n")
    result = CliRunner().invoke(main, ["trec_eval", "-m", "all_prefs", "-R", "prefs", str(bad),
                                       str(TREC / "prefs.results.test")])
    assert result.exit_code == 2
    assert f"{bad}:2: expected 5 fields (topic jg jsg docno rel_level), found 4" in result.stderr


def test_inconsistent_preferences_are_refused(tmp_path):
    """trec_eval aborts on A > B and B > A within one judgment group."""
    bad = tmp_path / "cycle.prefs"
    bad.write_text("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 c 1\n1 g s3 c 2\n1 g s3 a 1\n")
    result = CliRunner().invoke(main, ["trec_eval", "-m", "all_prefs", "-R", "prefs", str(bad),
                                       str(TREC / "prefs.results.test")])
    assert result.exit_code == 2 and "inconsistent preferences" in result.stderr


def test_unknown_measure_fails_like_trec_eval():
    result = trec_eval("-m nonsense qrels.test results.test")
    assert result.exit_code == 1
    assert "illegal measure 'nonsense'" in result.stderr


def test_unknown_option_is_a_usage_error():
    result = trec_eval("-X qrels.test results.test")
    assert result.exit_code != 0 and "No such option" in result.output


def test_malformed_run_fails_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 x r\n")
    result = CliRunner().invoke(main, ["trec_eval", str(TREC / "qrels.test"), str(bad)])
    assert result.exit_code == 2 and f"{bad}:1: score 'x' is not a finite number" in result.stderr


def test_no_common_topic(tmp_path):
    run = tmp_path / "other.run"
    run.write_text("999 Q0 d1 1 1.0 r\n")
    result = CliRunner().invoke(main, ["trec_eval", str(TREC / "qrels.test"), str(run)])
    assert result.exit_code == 7 and "No queries with both results and relevance info" in result.stderr


def test_duplicate_document_exits_4_like_trec_eval(tmp_path):
    run = tmp_path / "dup.run"
    run.write_text("301 Q0 d1 1 2.0 r\n301 Q0 d1 2 1.0 r\n")
    result = CliRunner().invoke(main, ["trec_eval", str(TREC / "qrels.test"), str(run)])
    assert result.exit_code == 4 and "retrieved twice for topic '301'" in result.stderr


def _lines(output: str, topic: str) -> dict[str, str]:
    """label -> printed value of one topic's (or 'all') lines."""
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in output.splitlines()
            if line.split("\t")[1] == topic}


def test_iprec_on_a_list_that_judged_only_empties_is_undefined(tmp_path):
    """-J removes every document of topic 2 (none is judged): m_iprec_at_recall.c and
    m_11pt_avg.c start from num_rel_ret / num_ret = 0/0, so the recall points whose cutoff
    lround(x * R) is 0 (R = 2: x < 0.25) print -nan, the others 0, and the means -nan.
    Worked from the C code; pytrec_eval (trec_eval 9) gives NaN there too
    (test_pytrec_eval_crosscheck.py)."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 x 1 2.0 t\n2 Q0 y 2 1.0 t\n")
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-J", "-m", "iprec_at_recall", "-m", "11pt_avg",
                                       "-m", "map", "-m", "num_ret", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    empty = _lines(result.stdout, "2")
    assert empty["num_ret"] == "0" and empty["map"] == "0.0000"
    assert [empty[f"iprec_at_recall_0.{x}0"] for x in range(3)] == ["  -nan"] * 3
    assert [empty[f"iprec_at_recall_0.{x}0"] for x in range(3, 10)] == ["0.0000"] * 7
    assert empty["iprec_at_recall_1.00"] == "0.0000" and empty["11pt_avg"] == "  -nan"
    assert _lines(result.stdout, "1")["iprec_at_recall_0.00"] == "1.0000"
    summary = _lines(result.stdout, "all")
    assert summary["iprec_at_recall_0.00"] == summary["11pt_avg"] == "  -nan"
    assert summary["iprec_at_recall_0.50"] == "0.5000" and summary["map"] == "0.5000"


def test_iprec_of_a_missing_topic_under_c_and_judged_only_is_undefined(tmp_path):
    """-c scores a topic the run lacks on trec_eval's one-document placeholder list, which -J
    empties (the placeholder is unjudged): iprec_at_recall_0.00 is then 0/0. Without -J it is 0."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 2.0 t\n")
    for options, expected in ((["-J"], "  -nan"), ([], "0.0000")):
        result = CliRunner().invoke(main, ["trec_eval", "-q", "-c", *options, "-m", "iprec_at_recall.0",
                                           str(qrels), str(run)])
        assert result.exit_code == 0, result.output
        assert _lines(result.stdout, "2")["iprec_at_recall_0.00"] == expected


def test_rndcg_without_a_positive_gain_is_undefined(tmp_path):
    """With -l 0 a topic judged 0 only has R > 0 but no positive gain: m_Rndcg.c divides its
    sum (0) by the number of R-level boundaries (0) and prints -nan; R = 0 (-l 1) gives 0."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 0\n2 0 d 0\n")
    run.write_text("1 Q0 a 1 2.0 t\n2 Q0 c 1 2.0 t\n")
    for options, expected in ((["-l", "0"], "  -nan"), ([], "0.0000")):
        result = CliRunner().invoke(main, ["trec_eval", "-q", *options, "-m", "Rndcg", str(qrels), str(run)])
        assert result.exit_code == 0, result.output
        assert _lines(result.stdout, "2")["Rndcg"] == expected
        assert _lines(result.stdout, "1")["Rndcg"] == "1.0000"


def test_explicit_gains_on_qrels_without_a_non_negative_level(tmp_path):
    """ndcg.1=2,2=5 on qrels whose only level is -1: the profile exists (gain 0 for the
    negative level, as under the built-in profiles), so the value is 0, not an error."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a -1\n1 0 b -1\n")
    run.write_text("1 Q0 a 1 2.0 t\n")
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-m", "ndcg.1=2,2=5", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert _lines(result.stdout, "1")["ndcg_1=2,2=5"] == "0.0000"


def test_rbp_resid_is_the_same_double_as_trec_eval(tmp_path):
    """m_rbp_resid.c multiplies p repeatedly and adds in rank order: topic A (rank 3 of 4
    unjudged) gives 0.9^4 + 0.1 * 0.81 = 0.7371000000000001 in doubles, topic B (ranks 1, 2, 4
    unjudged) 0.919, so the mean is 0.8280500000000001 and prints 0.8281. A closed form with
    pow() gives 0.7371 and a mean that prints 0.8280 (found beside a trec_eval build)."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("A 0 a1 1\nA 0 a2 1\nA 0 a4 1\nB 0 b3 1\n")
    run.write_text("".join(f"A Q0 a{r} {r} {10 - r} t\n" for r in range(1, 5))
                   + "".join(f"B Q0 b{r} {r} {10 - r} t\n" for r in range(1, 5)))
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-m", "rbp_resid", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ("rbp_resid             \tA\t0.7371\nrbp_resid             \tB\t0.9190\n"
                             "rbp_resid             \tall\t0.8281\n")


def test_run_on_standard_input():
    """trec_eval 10 reads the run from stdin when its name is '-'."""
    result = CliRunner().invoke(
        main, ["trec_eval", str(TREC / "qrels.test"), "-"], input=(TREC / "results.test").read_bytes()
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == (TREC / "out.test").read_text()


def test_bad_line_on_standard_input_is_named_dash():
    result = CliRunner().invoke(main, ["trec_eval", str(TREC / "qrels.test"), "-"], input=b"301 Q0 d1 1 x r\n")
    assert result.exit_code == 2 and "-:1: score 'x' is not a finite number" in result.stderr


def test_the_command_imports_no_pandas_pyarrow_or_numpy(tmp_path):
    """Start-up counts in the benchmark: `pyeval trec_eval` on files that fit the loaders' fast
    path computes without pandas, pyarrow or numpy (docs/benchmarks.md)."""
    import subprocess
    import sys

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 3 t\n2 Q0 d 2 3 t\n")
    script = (
        "import sys\n"
        "from pyeval.cli import main\n"
        "try:\n"
        "    main(['trec_eval', '-q', sys.argv[1], sys.argv[2]])\n"
        "except SystemExit as exit:\n"
        "    assert not exit.code, exit.code\n"
        "print(sorted({'pandas', 'pyarrow', 'numpy'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "q"), str(tmp_path / "r")],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert set(ast.literal_eval(lines[-1])) - IMPORTED_BY_DUCKDB == set()  # before DuckDB 2.0: its own
    assert "map                   \tall\t0.7500" in lines


def test_small_inputs_take_one_duckdb_thread(monkeypatch):
    """Threads cost more than they save on a small run (pyeval.compat.trec_eval.SMALL_INPUTS)."""
    from pyeval.compat import trec_eval as module

    files = (TREC / "qrels.test", TREC / "results.test")
    assert module._small(TREC / "no such file")  # the loaders report it
    small = module.SMALL_INPUTS
    monkeypatch.setattr(module, "SMALL_INPUTS", (TREC / "results.test").stat().st_size + 1)
    assert module._small(TREC / "results.test") and not module._small(TREC)  # a folder: its files' bytes
    threads = []
    for limit in (small, 0):
        monkeypatch.setattr(module, "SMALL_INPUTS", limit)
        con = module._scratch(set(), module._small(*files))
        threads.append(con.execute("select current_setting('threads')").fetchone()[0])
        con.close()
    import duckdb

    assert threads == [1, duckdb.connect().execute("select current_setting('threads')").fetchone()[0]]


def test_the_output_statement_reads_its_relations_before_its_own():
    """trec_printed and the means are common table expressions put before the output file's
    own, so that the file's final ``order by`` orders the printed lines."""
    from pyeval.compat.trec_eval import _reading

    text = "-- reads: a\nwith own as (select 1 as x)\nselect x from own, defined order by x"
    assert _reading({"defined": "select 2 as y"}, text) == (
        "with defined as (\nselect 2 as y\n),\nown as (select 1 as x)\nselect x from own, defined order by x")
    assert _reading({"a": "select 1", "b": "select 2"}, "select * from a, b") == (
        "with a as (\nselect 1\n),\nb as (\nselect 2\n)\nselect * from a, b")


def test_the_printed_measures_are_a_select_of_bound_lists():
    import duckdb

    from pyeval.compat.trec_eval import _printed
    from pyeval.measures import parse

    select, parameters = _printed([("runid", None, False, True, False, False, True),
                                   ("map", parse("AP"), True, True, False, False, False)])
    assert duckdb.connect().execute(select, parameters).fetchall() == [
        (0, "runid", None, False, True, False, False, True), (1, "map", "AP", True, True, False, False, False)]


@pytest.mark.parametrize("in_topic_order", [True, False])
def test_the_means_select_is_what_means_into_stores(in_topic_order):
    import duckdb

    from pyeval.core.evaluation import means_into, means_select
    from pyeval.measures import parse

    con = duckdb.connect()
    con.execute("create table scores as select * from (values ('r', '1', 'AP', 0.1), ('r', '2', 'AP', 0.2), "
                "('r', '1', 'NumRet', 3.0), ('r', '2', 'NumRet', 4.0), ('r', '1', 'GMAP', 0.0), "
                "('r', '2', 'GMAP', 0.5)) as t(run_id, topic_id, measure, value)")
    measures = [parse("AP"), parse("NumRet"), parse("GMAP")]
    means_into(con, measures, "stored", "scores", in_topic_order=in_topic_order)
    select, parameters = means_select(measures, "scores", in_topic_order=in_topic_order)
    selected = con.execute(f"select * from ({select}) order by all", parameters).fetchall()
    assert selected == con.execute("select * from stored order by all").fetchall()
    assert [row[:2] + row[3:] for row in selected] == [("r", "AP", 2), ("r", "GMAP", 2), ("r", "NumRet", 2)]
    assert not con.execute("select count(*) from duckdb_tables() where table_name = 'requested_aggregates'").fetchone()[0]
