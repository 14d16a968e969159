"""Runs and qrels from Parquet files, Parquet folders and Arrow tables (pyeval/loaders/columnar.py,
sql/loaders/columnar_*.sql): the same stored rows and values as the same data written as text,
other tools' column names, and one-line errors that leave the warehouse as it was."""
from __future__ import annotations

import math
import shlex

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import DuplicateEntryError, InputFormatError
from pyeval.loaders import columnar
from pyeval.loaders.source import stage_files

from ..conftest import FIXTURES, snapshot

TREC = FIXTURES / "trec_eval"

#: Every column of run_entries but the campaign's.
RUN_ENTRIES = "run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank"


def _fields(path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def _run_table(path, tag: bool = True, rank: bool = True) -> pa.Table:
    """A TREC run file's lines as the columns the loader reads (scores read as C strtod reads them)."""
    rows = _fields(path)
    columns = {"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
               "score": [float(r[4]) for r in rows]}
    if rank:
        columns["rank"] = [int(r[3]) for r in rows]
    if tag:
        columns["run_tag"] = [r[5] for r in rows]
    return pa.table(columns)


def _qrels_table(path) -> pa.Table:
    rows = _fields(path)
    return pa.table({"query_id": [r[0] for r in rows], "iteration": [r[1] for r in rows],
                     "doc_id": [r[2] for r in rows], "relevance": [int(r[3]) for r in rows]})


@pytest.fixture
def parquet_pair(tmp_path):
    """trec_eval's qrels.test and results.test written as Parquet."""
    qrels, run = tmp_path / "qrels.test.parquet", tmp_path / "results.test.parquet"
    pq.write_table(_qrels_table(TREC / "qrels.test"), qrels)
    pq.write_table(_run_table(TREC / "results.test"), run, row_group_size=400)  # several row groups
    return qrels, run


def _rows(con, table: str, campaign: str, columns: str = "*") -> list[tuple]:
    # table and columns: this module's constants
    return sorted(con.execute(f"select {columns} from {table} where campaign_id = $c", {"c": campaign}).fetchall(),
                  key=repr)


def test_parquet_stores_what_the_same_text_stores(con, parquet_pair):
    qrels, run = parquet_pair
    pyeval.load_qrels(con, "text", TREC / "qrels.test")
    pyeval.load_run(con, "text", TREC / "results.test")
    pyeval.load_qrels(con, "parquet", qrels)
    report = pyeval.load_run(con, "parquet", run)
    assert (report.name, report.rows, report.topics) == ("STANDARD", 1500, 3)
    assert _rows(con, "run_entries", "parquet", RUN_ENTRIES) == _rows(con, "run_entries", "text", RUN_ENTRIES)
    qrels_columns = "judgment_set, topic_id, intent_id, doc_id, level"
    assert _rows(con, "qrels_by_set", "parquet", qrels_columns) == _rows(con, "qrels_by_set", "text", qrels_columns)
    assert len(_rows(con, "qrels_by_set", "text")) == 3681
    assert con.execute("select qrels_kind, qrels_format from campaigns order by campaign_id").fetchall() == \
        [("adhoc", "trec")] * 2
    assert con.execute("select run_tag, source_file from runs where campaign_id = 'parquet'").fetchall() == \
        [("STANDARD", str(run.resolve()))]
    measures = ["AP", "nDCG@10", "P@5", "bpref", "recip_rank", "num_rel_ret"]
    values = {c: pyeval.evaluate(con, c, measures, store=False).per_topic.sort_values(["topic_id", "measure"])
              for c in ("text", "parquet")}
    assert values["text"][["topic_id", "measure", "value"]].values.tolist() == \
        values["parquet"][["topic_id", "measure", "value"]].values.tolist()


def test_a_run_without_ranks_or_tag_is_ranked_by_scores_and_named_by_its_file(con, tmp_path):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    path = tmp_path / "bm25.parquet"
    pq.write_table(_run_table(TREC / "results.test", tag=False, rank=False), path)
    report = pyeval.load_run(con, "t", path)
    assert report.name == "bm25"
    assert con.execute("select run_tag from runs").fetchall() == [(None,)]
    # ranked as a DataFrame without a rank column is: by its scores in trec_eval's order
    assert con.execute("select count(*) from run_entries where rank_given <> trec_rank").fetchone() == (0,)
    assert pyeval.load_run(con, "t", path, name="other").name == "other"


def test_cli_loads_parquet_and_names_it_like_text(tmp_path, parquet_pair):
    qrels, run = parquet_pair
    untagged = tmp_path / "input.dense.parquet"
    pq.write_table(_run_table(TREC / "results.test", tag=False), untagged)
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for arguments in (f"load qrels -C c {qrels}", f"load run -C c {run}", f"load run -C c {untagged}",
                      f"load run -C c --name named {untagged}"):
        result = runner.invoke(main, ["--db", db, *shlex.split(arguments)])
        assert result.exit_code == 0, result.output
    con = pyeval.connect(db)
    try:
        assert [r[0] for r in con.execute("select run_id from runs order by run_id").fetchall()] == \
            ["STANDARD", "dense", "named"]
    finally:
        con.close()


def test_ranx_writes_what_pyeval_reads(con, tmp_path):
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    run = ranx.Run({"q1": {"d1": 0.5, "d2": 1.5, "d4": 0.25}, "q2": {"d3": 3.0, "d9": 1.0}}, name="bm25")
    qrels.save(str(tmp_path / "qrels.parquet"))
    run.save(str(tmp_path / "ranx_run.parquet"))
    assert pq.read_schema(tmp_path / "ranx_run.parquet").names == ["q_id", "doc_id", "score"]
    pyeval.load_qrels(con, "r", tmp_path / "qrels.parquet")
    assert pyeval.load_run(con, "r", tmp_path / "ranx_run.parquet").name == "ranx_run"
    assert _rows(con, "qrels_by_set", "r", "topic_id, doc_id, level") == \
        [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1)]
    assert _rows(con, "run_entries", "r", "topic_id, doc_id, score, trec_rank") == \
        [("q1", "d1", 0.5, 2), ("q1", "d2", 1.5, 1), ("q1", "d4", 0.25, 3), ("q2", "d3", 3.0, 1), ("q2", "d9", 1.0, 2)]
    ours = pyeval.evaluate(con, "r", ["AP", "nDCG@10"], store=False).means.set_index("measure")["value"]
    theirs = ranx.evaluate(qrels, run, ["map", "ndcg@10"])
    assert math.isclose(ours["AP"], theirs["map"]) and math.isclose(ours["nDCG@10"], theirs["ndcg@10"])


def test_ir_datasets_columns_and_integer_ids(con, tmp_path):
    # ir_datasets' TrecQrel (query_id, doc_id, relevance, iteration) and GenericScoredDoc (query_id, doc_id,
    # score); integer identifiers are stored as their text, as a file writes them
    pq.write_table(pa.table({"query_id": [301, 301, 302], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2],
                             "iteration": ["0", "0", "0"]}), tmp_path / "q.parquet")
    pq.write_table(pa.table({"query_id": pa.array([301, 302], pa.int32()), "doc_id": ["a", "c"],
                             "score": pa.array([2, 1], pa.int16())}), tmp_path / "r.parquet")
    assert "format trec" in pyeval.load_qrels(con, "i", tmp_path / "q.parquet").notes
    pyeval.load_run(con, "i", tmp_path / "r.parquet")
    assert _rows(con, "qrels_by_set", "i", "topic_id, intent_id, doc_id, level") == \
        [("301", "", "a", 1), ("301", "", "b", 0), ("302", "", "c", 2)]
    assert _rows(con, "run_entries", "i", "topic_id, doc_id, score") == [("301", "a", 2.0), ("302", "c", 1.0)]


def test_a_varying_iteration_is_a_diversity_subtopic(con, tmp_path):
    pq.write_table(pa.table({"query_id": ["1", "1", "1"], "iteration": ["1", "2", "2"], "doc_id": ["a", "a", "b"],
                             "relevance": [1, 1, 0]}), tmp_path / "q.parquet")
    report = pyeval.load_qrels(con, "d", tmp_path / "q.parquet")
    assert "format trec-diversity" in report.notes
    assert _rows(con, "qrels_by_set", "d", "intent_id, doc_id") == [("1", "a"), ("2", "a"), ("2", "b")]


def test_a_folder_is_one_dataset_numbered_across_its_files(con, tmp_path):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    table = _run_table(TREC / "results.test")
    folder = tmp_path / "run.parquet"
    (folder / "topic=b").mkdir(parents=True)
    pq.write_table(table.slice(0, 700), folder / "part-0.parquet")
    pq.write_table(table.slice(700), folder / "topic=b" / "part-1.parquet")
    (folder / "_SUCCESS").write_text("")
    pyeval.load_qrels(con, "text", TREC / "qrels.test")
    pyeval.load_run(con, "text", TREC / "results.test")
    assert pyeval.load_run(con, "t", folder).rows == 1500
    assert _rows(con, "run_entries", "t", RUN_ENTRIES) == _rows(con, "run_entries", "text", RUN_ENTRIES)
    bad = tmp_path / "bad"
    bad.mkdir()
    pq.write_table(table.slice(0, 3), bad / "a.parquet")
    nulls = table.slice(3, 3).set_column(2, "score", pa.array([1.0, None, 2.0]))
    pq.write_table(nulls, bad / "b.parquet")
    before = snapshot(con)
    with pytest.raises(InputFormatError) as error:
        pyeval.load_run(con, "t", bad, name="bad")
    assert str(error.value) == f"{bad}:5: column 'score' has no value ({bad / 'b.parquet'} row 2)"
    assert snapshot(con) == before


def test_text_and_parquet_runs_load_together(con, tmp_path, parquet_pair):
    _, run = parquet_pair
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    reports = pyeval.load_runs(con, "t", [TREC / "results.test", run], names=["text", "parquet"])
    assert [r.rows for r in reports] == [1500, 1500]
    columns = "topic_id, doc_id, rank_given, score, file_position, trec_rank"
    rows = {name: sorted(con.execute(f"select {columns} from run_entries where run_id = $r", {"r": name}).fetchall())
            for name in ("text", "parquet")}
    assert rows["text"] == rows["parquet"]


def test_arrow_tables_load_and_evaluate(con, tmp_path):
    qrels, run = _qrels_table(TREC / "qrels.test"), _run_table(TREC / "results.test")
    pyeval.load_qrels(con, "a", qrels)
    report = pyeval.load_run(con, "a", run)
    assert (report.name, report.source_file) == ("STANDARD", "<Arrow table>")
    pyeval.load_qrels(con, "text", TREC / "qrels.test")
    pyeval.load_run(con, "text", TREC / "results.test")
    assert _rows(con, "run_entries", "a", RUN_ENTRIES) == _rows(con, "run_entries", "text", RUN_ENTRIES)
    with pytest.raises(InputFormatError) as error:
        pyeval.load_run(con, "a", run.drop_columns(["run_tag"]))
    assert str(error.value) == ("<Arrow table>: no run tag column (run_id, name, run_tag) to name the run by: "
                                "give it a name (name=, --name)")
    assert pyeval.load_run(con, "a", run.drop_columns(["run_tag"]), name="named").rows == 1500


def test_the_python_api_takes_parquet_paths_and_arrow_tables(parquet_pair):
    qrels, run = parquet_pair
    measures = ["AP", "nDCG@10", "P@5"]
    text = pyeval.calc_aggregate(measures, str(TREC / "qrels.test"), str(TREC / "results.test"))
    assert pyeval.calc_aggregate(measures, str(qrels), str(run)) == text
    assert pyeval.calc_aggregate(measures, pq.read_table(qrels), pq.read_table(run)) == text
    evaluator = pyeval.evaluator(measures, pq.read_table(qrels))
    try:
        assert evaluator.calc_aggregate(pq.read_table(run)) == text
    finally:
        evaluator.close()


def test_the_fast_path_leaves_parquet_alone(tmp_path, parquet_pair):
    import duckdb

    from pyeval.loaders.qrels import TREC_QRELS_FIELDS
    from pyeval.loaders.runs import RUN_FIELDS

    qrels, run = parquet_pair
    with duckdb.connect() as scratch:  # what pyeval trec_eval's transient route asks first
        assert stage_files(scratch, {0: run}, RUN_FIELDS, "run_fast_rows", "staged_run_files") == {}
        assert stage_files(scratch, {0: qrels}, TREC_QRELS_FIELDS, "qrels_fast_rows", "staged_qrels_files") == {}


def _trec_eval(arguments: list) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["trec_eval", *map(str, arguments)])
    return result.exit_code, result.output


@pytest.mark.parametrize("options", [[], ["-q", "-m", "all_trec"], ["-m", "map", "-m", "ndcg_cut.10", "-c"]])
def test_trec_eval_prints_the_same_bytes_from_parquet(parquet_pair, options):
    qrels, run = parquet_pair
    text = _trec_eval([*options, TREC / "qrels.test", TREC / "results.test"])
    assert text[0] == 0 and text[1].count("\n") >= 2
    assert _trec_eval([*options, qrels, run]) == text


def test_trec_eval_reads_parquet_qrels_as_it_is(parquet_pair):
    # the run id comes from the text run's last line: no change to pyeval trec_eval needed
    qrels, _ = parquet_pair
    for options in ([], ["-q", "-m", "all_trec"]):
        text = _trec_eval([*options, TREC / "qrels.test", TREC / "results.test"])
        assert text[0] == 0 and text[1].startswith("runid                 \tall\tSTANDARD\n" if not options
                                                   else "num_ret               \t301\t")
        assert _trec_eval([*options, qrels, TREC / "results.test"]) == text


def test_the_command_line_refuses_a_bad_column_in_one_line(tmp_path):
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({**_RUN, "score": ["1", "2", "3"]}), path)
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "load", "qrels", "-C", "c", str(TREC / "qrels.test")]).exit_code == 0
    result = runner.invoke(main, ["--db", db, "load", "run", "-C", "c", str(path)])
    assert result.exit_code == 1
    assert result.output == (f"Error: {path}: column 'score' is VARCHAR: the score must be a number (integer, decimal "
                             "or floating point) (columns found: query_id VARCHAR, doc_id VARCHAR, score VARCHAR)\n")


def test_trec_eval_reads_a_parquet_run_id(parquet_pair):
    qrels, run = parquet_pair
    assert _trec_eval([qrels, run]) == _trec_eval([TREC / "qrels.test", TREC / "results.test"])


def test_last_run_tag(tmp_path, parquet_pair):
    _, run = parquet_pair
    table = _run_table(TREC / "results.test")
    pq.write_table(table.set_column(4, "run_tag", pa.array(["first"] * 1499 + ["last"])), tmp_path / "x.parquet")
    pq.write_table(table.drop_columns(["run_tag"]), tmp_path / "untagged.parquet")
    assert columnar.last_run_tag(run) == "STANDARD"
    assert columnar.last_run_tag(tmp_path / "x.parquet") == "last"
    assert columnar.last_run_tag(tmp_path / "untagged.parquet") == "untagged"
    assert columnar.last_run_tag(TREC / "results.test") is None


def test_export_run_parquet_round_trips(tmp_path):
    db, out = str(tmp_path / "w.duckdb"), tmp_path / "out.parquet"
    runner = CliRunner()
    for arguments in (["load", "qrels", "-C", "c", TREC / "qrels.test"],
                      ["load", "run", "-C", "c", TREC / "results.test"],
                      ["export-run", "-C", "c", "STANDARD", "--format", "parquet", "-o", out],
                      ["load", "run", "-C", "c", "--name", "back", out]):
        result = runner.invoke(main, ["--db", db, *map(str, arguments)])
        assert result.exit_code == 0, result.output
    assert pq.read_schema(out).names == ["query_id", "doc_id", "score", "rank", "run_tag"]
    assert pq.read_table(out).column("run_tag").unique().to_pylist() == ["STANDARD"]
    con = pyeval.connect(db)
    try:
        rows = {name: con.execute("select topic_id, doc_id, rank_given, score, file_position, trec_rank "
                                  "from run_entries where run_id = $r order by file_position", {"r": name}).fetchall()
                for name in ("STANDARD", "back")}
    finally:
        con.close()
    assert rows["back"] == rows["STANDARD"]  # results.test has no comment line: positions are its rows
    result = runner.invoke(main, ["--db", db, "export-run", "-C", "c", "STANDARD", "--format", "parquet"])
    assert result.exit_code == 2 and "--format parquet writes a file: give it with --out" in result.output
    result = runner.invoke(main, ["--db", db, "export-run", "-C", "c", "STANDARD", "--format", "parquet",
                                  "-o", str(out)])
    assert result.exit_code == 1 and "exists and is not a run file pyeval wrote" in result.output


# --- errors: one line naming the file and what is wrong; nothing stored ---------------------------------------------

_RUN = {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [1.5, 0.5, 2.0]}
_FOUND = "columns found: query_id VARCHAR, doc_id VARCHAR, score DOUBLE"


@pytest.mark.parametrize("columns, message", [
    ({"query_id": _RUN["query_id"], "score": _RUN["score"]},
     "no document column (expected one of doc_id, docno; columns found: query_id VARCHAR, score DOUBLE)"),
    ({**_RUN, "q_id": _RUN["query_id"]},
     "columns 'query_id' and 'q_id' both give the topic: keep one (" + _FOUND + ", q_id VARCHAR)"),
    ({**_RUN, "score": ["1.5", "0.5", "2"]},
     "column 'score' is VARCHAR: the score must be a number (integer, decimal or floating point) "
     "(columns found: query_id VARCHAR, doc_id VARCHAR, score VARCHAR)"),
    ({**_RUN, "rank": [1.0, 2.0, 1.0]},
     "column 'rank' is DOUBLE: the rank must be an integer (" + _FOUND + ", rank DOUBLE)"),
    ({**_RUN, "doc_id": [1.5, 2.5, 3.5]},
     "column 'doc_id' is DOUBLE: the document must be text or an integer "
     "(columns found: query_id VARCHAR, doc_id DOUBLE, score DOUBLE)"),
])
def test_bad_columns_are_refused_in_one_line(con, tmp_path, columns, message):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table(columns), path)
    before = snapshot(con)
    with pytest.raises(InputFormatError) as error:
        pyeval.load_run(con, "t", path)
    assert str(error.value) == f"{path}: {message}"
    assert snapshot(con) == before


@pytest.mark.parametrize("column, values, row, reason", [
    ("query_id", ["1", None, "2"], 2, "column 'query_id' has no value"),
    ("doc_id", ["a", "b", ""], 3, "column 'doc_id' is empty"),
    ("doc_id", ["a", "b c", "d"], 2, "column 'doc_id' holds whitespace: 'b c'"),
    ("score", [1.0, float("nan"), 2.0], 2, "column 'score' holds nan, not a finite number"),
    ("score", [float("inf"), 1.0, 2.0], 1, "column 'score' holds inf, not a finite number"),
    ("rank", pa.array([1, 2**63, 1], pa.uint64()), 2,
     "column 'rank' holds 9223372036854775808, which does not fit a 64-bit integer"),
    ("rank", pa.array([1, None, 1], pa.int64()), 2, "column 'rank' has no value"),
    ("run_tag", ["x", "x", None], 3, "column 'run_tag' has no value"),
])
def test_bad_run_values_are_named_by_row(con, tmp_path, column, values, row, reason):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({**_RUN, column: values}), path)
    before = snapshot(con)
    with pytest.raises(InputFormatError) as error:
        pyeval.load_run(con, "t", path, name="r")
    assert str(error.value) == f"{path}:{row}: {reason}"
    assert snapshot(con) == before


def test_a_document_twice_for_a_topic_is_a_duplicate(con, tmp_path):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"query_id": ["1", "2", "1"], "doc_id": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}), path)
    before = snapshot(con)
    with pytest.raises(DuplicateEntryError) as error:
        pyeval.load_run(con, "t", path)
    assert str(error.value) == f"{path}:3: document 'a' retrieved twice for topic '1' (first on line 1)"
    assert snapshot(con) == before


@pytest.mark.parametrize("columns, error_type, message", [
    ({"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]}, DuplicateEntryError,
     "2: duplicate judgment of document 'a' for topic '1' (first on line 1)"),
    ({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2**40]}, InputFormatError,
     "2: column 'relevance' holds 1099511627776, which does not fit a 32-bit integer"),
    ({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": pa.array([1, None], pa.int8())}, InputFormatError,
     "2: column 'relevance' has no value"),
    ({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1.0, 2.0]}, InputFormatError,
     " column 'relevance' is DOUBLE: the relevance must be an integer (columns found: query_id VARCHAR, "
     "doc_id VARCHAR, relevance DOUBLE)"),
    ({"query_id": ["1"], "doc_id": ["a"], "relevance": [1], "score": [1]}, InputFormatError,
     " columns 'relevance' and 'score' both give the relevance: keep one (columns found: query_id VARCHAR, "
     "doc_id VARCHAR, relevance BIGINT, score BIGINT)"),
    ({"query_id": ["1"], "doc_id": ["a"], "relevance": [1], "iteration": [" 0"]}, InputFormatError,
     "1: column 'iteration' holds whitespace: ' 0'"),
])
def test_bad_qrels_are_refused_and_nothing_is_stored(con, tmp_path, columns, error_type, message):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    path = tmp_path / "q.parquet"
    pq.write_table(pa.table(columns), path)
    before = snapshot(con)
    with pytest.raises(error_type) as error:
        pyeval.load_qrels(con, "new", path)
    assert str(error.value) == f"{path}:{message}"
    assert type(error.value) is error_type
    assert snapshot(con) == before


def test_inputs_parquet_cannot_be(con, tmp_path, parquet_pair):
    qrels, run = parquet_pair
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    with pytest.raises(InputFormatError) as error:
        pyeval.load_qrels(con, "n", qrels, format="ntcir")
    assert str(error.value) == (f"{qrels}: Parquet and Arrow qrels hold integer relevance, in no ntcir layout: "
                                "load them with format auto, trec, trec-diversity")
    with pytest.raises(InputFormatError) as error:
        pyeval.load_intents(con, "t", run)
    assert str(error.value) == f"{run}: a Parquet or Arrow input: only runs and qrels are read from them"
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(run.read_bytes()[:200])
    before = snapshot(con)
    with pytest.raises(InputFormatError, match=r"^.*damaged.parquet: cannot read it as Parquet: "):
        pyeval.load_run(con, "t", damaged)
    assert snapshot(con) == before


def test_a_campaign_folder_holds_parquet_qrels_and_runs(con, tmp_path):
    folder = tmp_path / "web"
    (folder / "runs" / "dense.parquet").mkdir(parents=True)
    pq.write_table(_qrels_table(TREC / "qrels.test"), folder / "qrels.parquet")
    table = _run_table(TREC / "results.test")
    pq.write_table(table, folder / "runs" / "standard.parquet")
    pq.write_table(table.drop_columns(["run_tag"]).slice(0, 700), folder / "runs" / "dense.parquet" / "part-0.parquet")
    pq.write_table(table.drop_columns(["run_tag"]).slice(700), folder / "runs" / "dense.parquet" / "part-1.parquet")
    (folder / "runs" / "indri.txt").write_text("301 Q0 FR940202-2-00150 1 2.5 indri\n")
    report = pyeval.load_campaign(con, folder)
    assert report.skipped == [] and report.ignored == []
    assert con.execute("select run_id, run_tag from runs order by run_id").fetchall() == \
        [("STANDARD", "STANDARD"), ("dense", None), ("indri", "indri")]
    assert con.execute("select count(*) from qrels_by_set").fetchone() == (3681,)
    assert columnar.first_run_tag(folder / "runs" / "standard.parquet") == "STANDARD"


def test_arrow_diversity_qrels_give_ad_hoc_measures_ir_measures_values():
    ir_measures = pytest.importorskip("ir_measures")
    from ..measures.test_interop_diversity_qrels import ADHOC, ROWS, RUN

    table = pa.table({"query_id": [r[0] for r in ROWS], "doc_id": [r[1] for r in ROWS],
                      "relevance": [r[2] for r in ROWS], "iteration": [r[3] for r in ROWS]})
    expected = ir_measures.calc_aggregate(ADHOC, [ir_measures.Qrel(*row) for row in ROWS], RUN)
    assert pyeval.calc_aggregate(ADHOC, table, RUN) == pytest.approx(expected)


def test_several_parquet_inputs_in_one_load(con, tmp_path):
    qrels = _qrels_table(TREC / "qrels.test")
    pq.write_table(qrels.slice(0, 2000), tmp_path / "qrels-a.parquet")
    pq.write_table(qrels.slice(2000), tmp_path / "qrels-b.parquet")
    pyeval.load_qrels(con, "t", [tmp_path / "qrels-a.parquet", tmp_path / "qrels-b.parquet"])
    assert con.execute("select count(*) from qrels_by_set").fetchone() == (3681,)
    pq.write_table(qrels.slice(1999, 5), tmp_path / "again.parquet")
    before = snapshot(con)
    with pytest.raises(DuplicateEntryError) as error:
        pyeval.load_qrels(con, "u", [tmp_path / "qrels-a.parquet", tmp_path / "again.parquet"])
    assert str(error.value) == f"{tmp_path / 'again.parquet'}:1: judgment given already by " \
                               f"{tmp_path / 'qrels-a.parquet'} line 2000"
    assert snapshot(con) == before
    runs = tmp_path / "runs"
    runs.mkdir()
    table = _run_table(TREC / "results.test", tag=False)
    pq.write_table(table, runs / "a.parquet")
    pq.write_table(table.slice(0, 10), runs / "b.parquet")
    (runs / "c.txt").write_text("301 Q0 x 1 1.0 c\n")
    reports = pyeval.load_runs(con, "t", [str(runs / "*.parquet"), runs / "c.txt"])
    assert [(r.name, r.rows) for r in reports] == [("a", 1500), ("b", 10), ("c", 1)]


def test_rows_keep_their_order_whatever_the_connection_preserves(con, parquet_pair):
    qrels, run = parquet_pair
    pyeval.load_qrels(con, "text", TREC / "qrels.test")
    pyeval.load_run(con, "text", TREC / "results.test")
    con.execute("set threads = 4")
    con.execute("set preserve_insertion_order = false")
    pyeval.load_qrels(con, "parquet", qrels)
    pyeval.load_run(con, "parquet", run)
    assert con.execute("select current_setting('preserve_insertion_order')").fetchone() == (False,)
    con.execute("set preserve_insertion_order = true")
    assert _rows(con, "run_entries", "parquet", RUN_ENTRIES) == _rows(con, "run_entries", "text", RUN_ENTRIES)


def test_a_folder_of_one_parquet_file_is_its_run(con, tmp_path):
    pyeval.load_qrels(con, "t", TREC / "qrels.test")
    folder = tmp_path / "bm25.parquet"
    folder.mkdir()
    pq.write_table(_run_table(TREC / "results.test", tag=False), folder / "part-0.parquet")
    report = pyeval.load_run(con, "t", folder)
    assert (report.name, report.rows, report.source_file) == ("bm25", 1500, str(folder))
    from pyeval.loaders.source import content_sha256

    assert report.sha256 == content_sha256(folder / "part-0.parquet")


def test_the_drop_in_stages_parquet_inputs_on_its_fast_route(parquet_pair, tmp_path):
    """pyeval trec_eval keeps a Parquet run staged and checked as a text one (transient.stage_pair),
    not stored by the general path; a bad value sends it to the loaders, which name it."""
    from pyeval.compat.trec_eval import CAMPAIGN, RELATIONS
    from pyeval.loaders import transient
    from pyeval.storage import warehouse

    qrels, run = parquet_pair
    con = warehouse.scratch({*transient.TABLES, *RELATIONS})
    try:
        assert transient.stage_pair(con, CAMPAIGN, qrels, run, "run")
        stored = con.execute("select count(*), count(distinct topic_id) from run_entries").fetchone()
        assert stored == (1500, 3)  # results.test: 3 topics
    finally:
        con.close()
    bad = tmp_path / "bad.parquet"
    pq.write_table(_run_table(TREC / "results.test").set_column(2, "score", pa.array([float("nan")] * 1500)), bad)
    con = warehouse.scratch({*transient.TABLES, *RELATIONS})
    try:
        assert not transient.stage_pair(con, CAMPAIGN, qrels, bad, "run")
    finally:
        con.close()
    code, output = _trec_eval([qrels, bad])
    assert code == 2 and "column 'score' holds nan, not a finite number" in output
