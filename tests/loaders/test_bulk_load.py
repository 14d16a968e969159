"""Loading many runs at once (pyeval/loaders/runs.py load_runs, docs/loading.md "Loading many
runs") and whole campaign folders (pyeval/loaders/campaign.py): one scan, one set-based check,
one transaction. A bad line anywhere is named with its file and line and nothing is stored;
what is stored is exactly what loading the files one by one stores."""
from __future__ import annotations

import gzip
import shutil

import pandas as pd
import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import DuplicateEntryError

from ..conftest import FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
TOPICS = ("301", "302", "303")


def _run_text(number: int, docs: int = 20) -> str:
    """A small run tagged r<number>, with score ties (broken by docno in trec order)."""
    return "".join(
        f"{topic} Q0 doc{(number * 7 + d) % 97} {d + 1} {(docs - d) // 2 + number % 3} r{number:03d}\n"
        for topic in TOPICS for d in range(docs)
    )


@pytest.fixture
def runs_folder(tmp_path):
    """100 run files (every tenth gzipped, one with a '#' comment: the general path)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for number in range(100):
        text = _run_text(number)
        if number == 42:
            text = "# a comment line: this file takes the general path\n" + text
        if number % 10 == 3:
            (folder / f"r{number:03d}.txt.gz").write_bytes(gzip.compress(text.encode()))
        else:
            (folder / f"r{number:03d}.txt").write_text(text)
    return folder


def _warehouse(path):
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    return con


@pytest.mark.slow  # 100 files loaded together and one by one (~15 s CPU)
def test_many_files_store_what_loading_them_one_by_one_stores(tmp_path, runs_folder):
    together = _warehouse(tmp_path / "together.duckdb")
    reports = pyeval.load_runs(together, "c", [runs_folder])
    assert [r.name for r in reports] == [f"r{n:03d}" for n in range(100)]
    one_by_one = _warehouse(tmp_path / "one.duckdb")
    for path in sorted(runs_folder.iterdir()):
        pyeval.load_run(one_by_one, "c", path)
    expected, got = snapshot(one_by_one), snapshot(together)
    assert got["run_entries"] == expected["run_entries"]
    assert len(got["run_entries"]) == 100 * 60
    strip = lambda rows: sorted(row[:5] for row in rows)  # noqa: E731 (loaded_at differs)
    assert strip(got["runs"]) == strip(expected["runs"])


def test_a_bad_line_in_the_57th_of_100_files_is_named_and_nothing_is_stored(tmp_path, runs_folder):
    con = _warehouse(tmp_path / "w.duckdb")
    pyeval.load_runs(con, "c", [runs_folder / "r000.txt"])
    before = snapshot(con)
    bad = runs_folder / "r056.txt"  # the 57th file
    lines = bad.read_text().splitlines(keepends=True)
    lines[33] = "302 Q0 other-doc 34 not-a-score r056\n"
    bad.write_text("".join(lines))
    files = sorted(p for p in runs_folder.iterdir() if p.name != "r000.txt")
    with pytest.raises(pyeval.InputFormatError) as error:
        pyeval.load_runs(con, "c", files)
    assert str(error.value).startswith(f"{bad}:34: score 'not-a-score' is not a finite number")
    assert snapshot(con) == before
    con.close()
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "run", "-C", "c",
                                       str(runs_folder)])
    assert result.exit_code == 1
    assert f"{bad}:34:" in result.output and "Traceback" not in result.output
    assert snapshot(pyeval.connect(tmp_path / "w.duckdb")) == before


def test_a_duplicate_in_one_file_of_many_names_that_file_and_line(tmp_path, runs_folder):
    con = _warehouse(tmp_path / "w.duckdb")
    before = snapshot(con)
    bad = runs_folder / "r071.txt"
    bad.write_text(bad.read_text() + "303 Q0 doc0 99 0.5 r071\n" + "303 Q0 doc0 100 0.25 r071\n")
    with pytest.raises(DuplicateEntryError, match=rf"^{bad}:62: document 'doc0' retrieved twice"):
        pyeval.load_runs(con, "c", [runs_folder])
    assert snapshot(con) == before


def test_the_first_bad_file_in_order_is_reported(tmp_path, runs_folder):
    con = _warehouse(tmp_path / "w.duckdb")
    (runs_folder / "r090.txt").write_text("301 Q0 d1 x 1 r090\n")  # general path: bad rank
    dup = runs_folder / "r020.txt"  # fast path: a duplicate, earlier in the list
    dup.write_text(dup.read_text() + "301 Q0 doc1 21 0 r020\n" * 2)
    with pytest.raises(pyeval.InputFormatError, match=rf"^{dup}:"):
        pyeval.load_runs(con, "c", [runs_folder])


def test_glob_patterns_and_folders_name_their_files(tmp_path, runs_folder):
    con = _warehouse(tmp_path / "w.duckdb")
    reports = pyeval.load_runs(con, "c", [str(runs_folder / "r00*.txt")])
    assert [r.name for r in reports] == ["r000", "r001", "r002", "r004", "r005", "r006", "r007", "r008", "r009"]
    with pytest.raises(pyeval.InputFormatError, match="no file matches this pattern"):
        pyeval.load_runs(con, "c", [str(runs_folder / "nothing*.txt")])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(pyeval.InputFormatError, match="no file to load there"):
        pyeval.load_runs(con, "c", [empty])
    with pytest.raises(pyeval.InputFormatError, match="a run name applies to one file"):
        pyeval.load_run(con, "c", runs_folder, name="x")


def test_two_files_with_one_tag_are_refused_together(tmp_path):
    con = _warehouse(tmp_path / "w.duckdb")
    before = snapshot(con)
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(_run_text(1))
    with pytest.raises(pyeval.DataIntegrityError, match="loaded twice in this command"):
        pyeval.load_runs(con, "c", [tmp_path / "a.txt", tmp_path / "b.txt"])
    assert snapshot(con) == before


def _campaign_folder(tmp_path, runs_folder):
    folder = tmp_path / "web-campaign"
    folder.mkdir()
    shutil.copy(QRELS, folder / "qrels.test")
    shutil.move(str(runs_folder), folder / "runs")
    (folder / "README.txt").write_text("not a campaign file\n")
    return folder


def test_load_campaign_stores_the_folder_in_one_transaction(tmp_path, runs_folder):
    folder = _campaign_folder(tmp_path, runs_folder)
    con = pyeval.connect(tmp_path / "w.duckdb")
    report = pyeval.load_campaign(con, folder)
    assert report.campaign_id == "web-campaign"
    assert [p.name for p in report.ignored] == ["README.txt"]
    assert "ignored (not a recognised campaign file)" in report.summary()
    assert con.execute("select count(*), count(distinct run_id) from run_entries").fetchall() == [(6000, 100)]
    separate = _warehouse(tmp_path / "separate.duckdb")
    pyeval.load_runs(separate, "c", [folder / "runs"])
    assert snapshot(con)["run_entries"] == [("web-campaign", *row[1:]) for row in snapshot(separate)["run_entries"]]


def test_load_campaign_stores_nothing_when_one_run_is_bad(tmp_path, runs_folder):
    folder = _campaign_folder(tmp_path, runs_folder)
    (folder / "runs" / "r099.txt").write_text("301 Q0 d1 1\n")
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "campaign", str(folder)])
    assert result.exit_code == 1
    assert "r099.txt:1: expected at least 6 fields" in result.output
    con = pyeval.connect(tmp_path / "w.duckdb")
    assert con.execute("select (select count(*) from campaigns), (select count(*) from qrels)").fetchall() == [(0, 0)]


def test_load_campaign_on_the_sample_folder_asks_which_qrels(tmp_path):
    sample = tmp_path / "sample"
    shutil.copytree(FIXTURES.parent.parent / "pyeval" / "sample", sample,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    con = pyeval.connect(tmp_path / "w.duckdb")
    with pytest.raises(pyeval.InputFormatError, match="2 qrels files .*choose one with qrels=NAME"):
        pyeval.load_campaign(con, sample)
    with pytest.raises(pyeval.InputFormatError, match="2 intents files .*choose one with intents=NAME"):
        pyeval.load_campaign(con, sample, qrels="qrels.diversity.txt.gz")
    with pytest.raises(pyeval.DataIntegrityError, match="'indri' is loaded twice.*run_names='file'"):
        pyeval.load_campaign(con, sample, qrels="qrels.diversity.txt.gz", intents="intents.uniform.txt")
    report = pyeval.load_campaign(con, sample, campaign_id="web2012", qrels="qrels.diversity.txt.gz",
                                  intents="intents.uniform.txt", run_names="file")
    assert {r.name for r in report.reports if r.kind == "run"} >= {"indri-ql", "indri-rm", "sim01"}
    kinds = [r.kind for r in report.reports]
    assert kinds[:4] == ["qrels", "intents", "topics", "doclengths"] and kinds.count("run") == 20
    assert {p.name for p in report.ignored} == {"README.md", "qrels.adhoc.txt.gz", "intents.nonuniform.txt"}
    types = con.execute("select intent_type, count(*) from intents group by 1 order by 1").fetchall()
    assert dict(types).get("nav", 0) > 0  # the topics XML gave the intents their types


@pytest.mark.parametrize("name, run", [("input.uogTrA1.gz", "uogTrA1"), ("indri-ql.txt.gz", "indri-ql"),
                                       ("bm25", "bm25"), ("run.v2.run", "run.v2"), ("a.b.c", "a.b.c")])
def test_run_names_of_files(name, run):
    from pathlib import Path

    from pyeval.loaders.campaign import run_name_of_file

    assert run_name_of_file(Path(name)) == run


def _split_qrels(tmp_path, parts: int = 3):
    lines = QRELS.read_text().splitlines(keepends=True)
    folder = tmp_path / "qrels"
    folder.mkdir()
    size = len(lines) // parts + 1
    for part in range(parts):
        (folder / f"qrels.{part}.txt").write_text("".join(lines[part * size:(part + 1) * size]))
    return folder


def test_qrels_in_several_files_store_what_one_file_stores(tmp_path):
    folder = _split_qrels(tmp_path)
    one = pyeval.connect(tmp_path / "one.duckdb")
    pyeval.load_qrels(one, "c", QRELS)
    several = pyeval.connect(tmp_path / "several.duckdb")
    report = pyeval.load_qrels(several, "c", [folder])
    assert report.source_file == " + ".join(str(p.resolve()) for p in sorted(folder.iterdir()))
    assert snapshot(several)["qrels_by_set"] == snapshot(one)["qrels_by_set"]
    assert snapshot(several)["topics"] == snapshot(one)["topics"]
    # the provenance changes when any file does
    (folder / "qrels.1.txt").write_text((folder / "qrels.1.txt").read_text().replace(" 1\n", " 0\n", 1))
    again = pyeval.load_qrels(several, "c", [folder], replace=True)
    assert again.sha256 != report.sha256


def test_a_judgment_in_two_qrels_files_is_named_and_nothing_is_stored(tmp_path):
    folder = _split_qrels(tmp_path)
    second = folder / "qrels.1.txt"
    first_line = (folder / "qrels.0.txt").read_text().splitlines(keepends=True)[4]
    second.write_text(second.read_text() + first_line)
    con = pyeval.connect(tmp_path / "w.duckdb")
    line = len(second.read_text().splitlines())
    with pytest.raises(DuplicateEntryError, match=rf"^{second}:{line}: judgment given already by "
                                                  rf"{folder / 'qrels.0.txt'} line 5$"):
        pyeval.load_qrels(con, "c", [folder])
    assert con.execute("select (select count(*) from qrels), (select count(*) from campaigns)").fetchall() == [(0, 0)]
    bad = folder / "qrels.2.txt"
    bad.write_text(bad.read_text() + "301 0 dX high\n")
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "qrels", "-C", "c",
                                       str(folder / "qrels.0.txt"), str(bad)])
    assert result.exit_code == 1 and f"{bad}:" in result.output and "Traceback" not in result.output


def test_qrels_files_of_two_formats_are_refused(tmp_path):
    adhoc = tmp_path / "adhoc.txt"
    adhoc.write_text("301 0 d1 1\n301 0 d2 0\n")
    diversity = tmp_path / "diversity.txt"
    diversity.write_text("302 1 d1 1\n302 2 d2 1\n")
    con = pyeval.connect()
    with pytest.raises(pyeval.InputFormatError, match="its format is trec-diversity.*load files of one format"):
        pyeval.load_qrels(con, "c", [adhoc, diversity])


def test_a_hash_collision_in_the_duplicate_screen_is_no_error(tmp_path, runs_folder, monkeypatch):
    """run_summary.sql screens duplicates by 64-bit hashes; a collision (forced here: every
    document hashes alike) only makes the loader compare the docnos themselves."""
    from pyeval.core import sqlfiles
    from pyeval.loaders import runs

    read = sqlfiles.read

    screen = "xor(hash(doc_id), hash(reverse(doc_id)))"
    assert screen in read("loaders/run_summary.sql")  # else this test forces nothing

    def colliding(path):
        text = read(path)
        return text.replace(screen, "hash('same')") if path == "loaders/run_summary.sql" else text

    monkeypatch.setattr(runs.sqlfiles, "read", colliding)
    con = _warehouse(tmp_path / "w.duckdb")
    checked = []
    first_problem = runs.staging.first_problem
    monkeypatch.setattr(runs.staging, "first_problem",
                        lambda con, query, *a: checked.append(query) or first_problem(con, query, *a))
    reports = pyeval.load_runs(con, "c", [runs_folder / "r000.txt", runs_folder / "r001.txt"])
    assert [r.rows for r in reports] == [60, 60]
    assert checked == ["run_problems", "run_problems"]  # the alarm was raised, and the docnos compared
    bad = runs_folder / "r002.txt"
    bad.write_text(bad.read_text() + "301 Q0 doc14 21 0 r002\n")  # a real duplicate is still found
    with pytest.raises(DuplicateEntryError, match=rf"^{bad}:61: document 'doc14' retrieved twice"):
        pyeval.load_runs(con, "c", [bad])


def _diversity_campaign(path=None):
    con = pyeval.connect(path) if path else pyeval.connect()
    qrels = pd.DataFrame({"query_id": ["301", "301", "302"], "iteration": ["1", "2", "1"],
                          "doc_id": ["d1", "d2", "d3"], "relevance": [1, 1, 1]})
    pyeval.load_qrels(con, "c", qrels, format="trec-diversity")
    return con


def test_intents_in_several_files_store_what_one_file_stores(tmp_path):
    (tmp_path / "a.Iprob").write_text("301 1 0.5\n301 2 0.5\n")
    (tmp_path / "b.Iprob").write_text("302 1 1.0\n")
    (tmp_path / "all.Iprob").write_text("301 1 0.5\n301 2 0.5\n302 1 1.0\n")
    one = _diversity_campaign()
    pyeval.load_intents(one, "c", tmp_path / "all.Iprob")
    several = _diversity_campaign()
    report = pyeval.load_intents(several, "c", [tmp_path / "a.Iprob", tmp_path / "b.Iprob"])
    assert (report.rows, report.topics) == (3, 2)
    assert report.source_file == f"{(tmp_path / 'a.Iprob').resolve()} + {(tmp_path / 'b.Iprob').resolve()}"
    assert snapshot(several)["intents_by_set"] == snapshot(one)["intents_by_set"]
    # a judged intent that no file lists is still refused, over the files' union
    with pytest.raises(pyeval.InputFormatError, match="intent '2' of topic '301' is judged relevant"):
        pyeval.load_intents(_diversity_campaign(), "c", [tmp_path / "b.Iprob", _write(tmp_path / "c.Iprob", "301 1 1\n")])


def _write(path, text):
    path.write_text(text)
    return path


def test_an_intent_in_two_files_is_named_and_nothing_is_stored(tmp_path):
    first = _write(tmp_path / "a.Iprob", "301 1 0.5\n301 2 0.5\n")
    second = _write(tmp_path / "b.Iprob", "302 1 1.0\n301 2 0.5\n")
    con = _diversity_campaign(tmp_path / "w.duckdb")
    with pytest.raises(DuplicateEntryError, match=rf"^{second}:2: intent listed already by {first} line 2$"):
        pyeval.load_intents(con, "c", [first, second])
    assert con.execute("select count(*) from intents").fetchone() == (0,)
    con.close()
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "intents", "-C", "c",
                                       str(first), str(second)])
    assert result.exit_code == 1 and f"{second}:2: intent listed already" in result.output
    assert "Traceback" not in result.output
    # a bad line in the second file is named by that file's own check
    _write(second, "302 1 1.0\n302 2 high\n")
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "intents", "-C", "c",
                                       str(first), str(second)])
    assert result.exit_code == 1 and f"{second}:2: probability 'high' is not a number" in result.output
    _write(second, "302 1 1.0\n")
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "intents", "-C", "c",
                                       str(first), str(second)])
    assert result.exit_code == 0, result.output
    assert pyeval.connect(tmp_path / "w.duckdb").execute("select count(*) from intents").fetchone() == (3,)


def test_document_lengths_in_several_files(tmp_path):
    folder = tmp_path / "lengths"
    folder.mkdir()
    first = _write(folder / "part1.txt", "d1 10\nd2 20\n")
    second = _write(folder / "part2.txt", "d2 20\nd3 30\n")  # d2 again, with the same length: stored once
    con = _diversity_campaign(tmp_path / "w.duckdb")
    report = pyeval.load_doclengths(con, "c", [folder])
    assert report.rows == 3
    assert con.execute("select doc_id, length from document_lengths order by 1").fetchall() == [
        ("d1", 10), ("d2", 20), ("d3", 30)]
    _write(second, "d3 30\nd2 21\n")
    with pytest.raises(pyeval.InputFormatError,
                       match=rf"^{second}:2: a different length for this document is given by {first} line 2$"):
        pyeval.load_doclengths(con, "c", [folder], replace=True)
    assert con.execute("select count(*) from document_lengths").fetchone() == (3,)  # as it was
    con.close()
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), "load", "doclengths", "-C", "c",
                                       "--replace", str(folder / "*.txt")])
    assert result.exit_code == 1 and f"{second}:2: a different length" in result.output
    assert "Traceback" not in result.output


def test_load_campaign_loads_every_lengths_file_together(tmp_path, runs_folder):
    folder = _campaign_folder(tmp_path, runs_folder)
    _write(folder / "doclengths.1.txt", "doc1 10\ndoc2 20\n")
    _write(folder / "doclengths.2.txt", "doc3 30\n")
    con = pyeval.connect(tmp_path / "w.duckdb")
    report = pyeval.load_campaign(con, folder)
    assert [r.rows for r in report.reports if r.kind == "doclengths"] == [3]
    assert con.execute("select count(*) from document_lengths").fetchone() == (3,)


def test_docnos_duckdbs_string_hash_confuses_raise_no_alarm(tmp_path, monkeypatch):
    """DuckDB's hash() gives these two ClueWeb docnos one value; the duplicate screen
    (run_summary.sql) tells them apart, so the load needs no exact check."""
    import duckdb

    from pyeval.loaders import runs

    pair = ("clueweb09-en0007-75-02992", "clueweb09-en0009-75-02932")
    assert duckdb.execute("select hash($a) = hash($b)", {"a": pair[0], "b": pair[1]}).fetchall() == [(True,)]
    run = tmp_path / "run.txt"
    run.write_text("".join(f"301 Q0 {doc} {rank} {10 - rank} r\n" for rank, doc in enumerate(pair, 1)))
    con = _warehouse(tmp_path / "w.duckdb")
    checked = []
    first_problem = runs.staging.first_problem
    monkeypatch.setattr(runs.staging, "first_problem",
                        lambda con, query, *a: checked.append(query) or first_problem(con, query, *a))
    assert [r.rows for r in pyeval.load_runs(con, "c", [run])] == [2]
    assert checked == []
