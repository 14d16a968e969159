"""bench/floor_official.py, the floor of ``evaluate -m official`` (issue 39): its hand-written
statements compute the values pyeval's evaluate stores, every measure per topic and mean (1e-12),
so the benchmark's ratio compares the same work."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pyeval.cli import main

from ..conftest import FIXTURES

ROOT = FIXTURES.parent.parent
TREC = FIXTURES / "trec_eval"
TOLERANCE = 1e-12

_spec = importlib.util.spec_from_file_location("floor_official", ROOT / "bench" / "floor_official.py")
floor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(floor)

# Every edge the conventions name: graded and negative levels, tied scores (docno descending),
# a topic without relevant documents (2), a judged topic a run lacks (3 for r1, 2 for r2) and a
# run topic without judgments (4, ignored).
EDGE_QRELS = """\
1 0 a 1
1 0 b 0
1 0 c 2
1 0 d -1
1 0 e 0
2 0 a 0
2 0 b 0
3 0 a 1
3 0 z 1
"""
EDGE_RUNS = {
    "r1": """\
1 Q0 a 1 0.5 r1
1 Q0 b 2 0.5 r1
1 Q0 x 3 0.4 r1
1 Q0 d 4 0.3 r1
1 Q0 e 5 0.2 r1
1 Q0 c 6 0.1 r1
2 Q0 a 1 0.9 r1
2 Q0 q 2 0.8 r1
4 Q0 a 1 0.9 r1
""",
    "r2": """\
3 Q0 z 1 1 r2
3 Q0 y 2 1 r2
1 Q0 c 1 2 r2
1 Q0 e 2 1 r2
""",
}


def invoke(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def stored(db, evaluation: int) -> tuple[dict, dict]:
    """The means and per-topic values pyeval stored for ``evaluation``, by trec_eval name."""
    trec_name = {stored_name: name for name, stored_name in floor.STORED_NAMES.items()}
    con = duckdb.connect(str(db), read_only=True)
    try:
        means, per_topic = {}, {}
        for run, measure, value in con.execute(
                "select run_id, measure, value from evaluation_means where evaluation_id = $e", {"e": evaluation}
        ).fetchall():
            means.setdefault(run, {})[trec_name[measure]] = value
        for run, topic, measure, value in con.execute(
                "select run_id, topic_id, measure, value from topic_scores where evaluation_id = $e", {"e": evaluation}
        ).fetchall():
            per_topic.setdefault(run, {}).setdefault(topic, {})[trec_name[measure]] = value
    finally:
        con.close()
    return means, per_topic


def floor_values(db, campaign: str, topic_policy: str = "qrels") -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        floor.compute(con, campaign, topic_policy)
        return floor.values(con, per_topic=True)
    finally:
        con.close()


def assert_same(computed: dict, expected: dict) -> None:
    """Same keys at every level and every value within TOLERANCE."""
    assert computed.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_same(computed[key], value)
        else:
            assert math.isclose(computed[key], value, rel_tol=0, abs_tol=TOLERANCE), (key, computed[key], value)


def test_the_floor_computes_what_evaluate_official_stores_on_trec_eval_fixtures(tmp_path):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke("--db", db, "load", "run", "-C", "c", TREC / "results.test")
    invoke("--db", db, "evaluate", "-C", "c", "-m", "official")
    means, per_topic = stored(db, 1)
    assert set(means["STANDARD"]) == set(floor.MEASURES)  # the official set, every measure
    computed = floor_values(db, "c")
    assert_same(computed["means"], means)
    assert_same(computed["per_topic"], per_topic)


@pytest.mark.parametrize("topic_policy", ["qrels", "intersection"])
def test_the_floor_keeps_trec_eval_conventions_at_every_edge(tmp_path, write, topic_policy):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", write("qrels", EDGE_QRELS))
    invoke("--db", db, "load", "run", "-C", "c", *(write(name, text) for name, text in EDGE_RUNS.items()))
    invoke("--db", db, "evaluate", "-C", "c", "-m", "official", "--topics", topic_policy)
    means, per_topic = stored(db, 1)
    computed = floor_values(db, "c", topic_policy)
    assert_same(computed["means"], means)
    assert_same(computed["per_topic"], per_topic)
    assert set(computed["per_topic"]["r1"]) == ({"1", "2", "3"} if topic_policy == "qrels" else {"1", "2"})


def test_the_floor_reads_the_default_judgment_set(tmp_path, write):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", write("qrels", EDGE_QRELS))
    invoke("--db", db, "load", "qrels", "-C", "c", "--judgments", "second",
           write("second", EDGE_QRELS.replace("1 0 b 0", "1 0 b 1").replace("3 0 z 1", "3 0 z 0")))
    invoke("--db", db, "load", "run", "-C", "c", *(write(name, text) for name, text in EDGE_RUNS.items()))
    before = floor_values(db, "c")
    invoke("--db", db, "judgments", "default", "-C", "c", "second")
    invoke("--db", db, "evaluate", "-C", "c", "-m", "official")
    means, per_topic = stored(db, 1)
    after = floor_values(db, "c")
    assert after["means"]["r1"]["map"] != before["means"]["r1"]["map"]
    assert_same(after["means"], means)
    assert_same(after["per_topic"], per_topic)


def test_the_script_writes_the_values_it_computed(tmp_path, write, capsys):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke("--db", db, "load", "run", "-C", "c", TREC / "results.test")
    out = tmp_path / "values.json"
    assert floor.main([str(db), "c", "--out", str(out)]) == 0
    assert "1 runs, 3 (run, topic) pairs, 29 measures" in capsys.readouterr().out
    written = json.loads(out.read_text())
    assert set(written) == {"means"} and written["means"]["STANDARD"]["num_rel_ret"] == 131
    with pytest.raises(SystemExit):
        floor.main([str(db), "no such campaign"])
    assert "no campaign 'no such campaign'" in capsys.readouterr().err


def test_the_script_stores_what_it_computed_where_it_is_told(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke("--db", db, "load", "run", "-C", "c", TREC / "results.test")
    out, kept = tmp_path / "values.json", tmp_path / "kept.duckdb"
    kept.write_bytes(b"an earlier file, replaced")
    assert floor.main([str(db), "c", "--out", str(out), "--per-topic", "--store", str(kept)]) == 0
    written = json.loads(out.read_text())
    with duckdb.connect(str(kept), read_only=True) as con:
        scores = {(run, topic, measure): value for run, topic, measure, value in
                  con.execute("select run_id, topic_id, measure, value from floor_scores").fetchall()}
        means = dict(con.execute("select measure, value from floor_run_means where run_id = 'STANDARD'").fetchall())
    assert len(scores) == 3 * 29 and means == written["means"]["STANDARD"]
    assert all(scores[("STANDARD", topic, measure)] == value
               for topic, values in written["per_topic"]["STANDARD"].items() for measure, value in values.items())
    assert not Path(str(kept) + ".wal").exists()


def one_space(write, name: str, path_or_text: Path | str) -> Path:
    """The file with its fields separated by one space (the floor's --files reads only that)."""
    text = path_or_text.read_text() if isinstance(path_or_text, Path) else path_or_text
    return write(name, "".join(" ".join(line.split()) + "\n" for line in text.splitlines() if line.strip()))


def floor_prints(capsys, *args) -> str:
    capsys.readouterr()
    assert floor.main([str(a) for a in args]) == 0
    return capsys.readouterr().out


def test_the_floor_of_files_prints_what_trec_eval_prints(write, capsys):
    qrels, run = one_space(write, "qrels", TREC / "qrels.test"), one_space(write, "run", TREC / "results.test")
    assert floor_prints(capsys, "--files", qrels, run) == (TREC / "out.test").read_text()


@pytest.mark.parametrize("topic_policy", ["qrels", "intersection"])
def test_the_floor_of_files_keeps_trec_eval_conventions_at_every_edge(write, capsys, topic_policy):
    qrels = write("qrels", EDGE_QRELS)
    all_topics = ["-c"] if topic_policy == "qrels" else []
    for name, text in EDGE_RUNS.items():
        run = write(name, text)
        printed = floor_prints(capsys, "--files", qrels, run, "--topics", topic_policy)
        assert printed == invoke("trec_eval", *all_topics, qrels, run)
        assert printed.startswith(f"runid                 \tall\t{name}\n")


def test_the_floor_of_files_writes_the_values_of_the_stored_tables(tmp_path, write, capsys):
    """--files computes, per topic, what the same statements compute over a warehouse holding
    the same files (the in-memory tables have the stored tables' shape)."""
    db = tmp_path / "w.duckdb"
    qrels, run = write("qrels", EDGE_QRELS), write("r1", EDGE_RUNS["r1"])
    invoke("--db", db, "load", "qrels", "-C", "c", qrels)
    invoke("--db", db, "load", "run", "-C", "c", run)
    out = tmp_path / "values.json"
    floor_prints(capsys, "--files", qrels, run, "--topics", "qrels", "--out", out, "--per-topic")
    assert_same(json.loads(out.read_text()), floor_values(db, "c"))


def test_the_script_takes_a_warehouse_or_files(capsys):
    for argv in ([], ["w.duckdb", "c", "--files", "q", "r"]):
        with pytest.raises(SystemExit):
            floor.main(argv)
        assert "give either WAREHOUSE CAMPAIGN or --files QRELS RUN" in capsys.readouterr().err


@pytest.mark.parametrize("topic_policy", ["qrels", "intersection"])
def test_the_recording_floor_writes_the_rows_evaluate_writes(tmp_path, write, topic_policy):
    """--record (the floor of evaluate's whole work) leaves the warehouse as ``pyeval evaluate -m
    official`` leaves a copy of it: the same rows in each table an evaluation writes (values
    within TOLERANCE; ids, times and the pyeval version aside), the archive's copies included,
    and nothing stale; a second recording, under the other topic policy, replaces the current rows
    of the keys it covers only, as a second evaluation does."""
    import shutil

    db = tmp_path / "w.duckdb"
    invoke("--db", db, "load", "qrels", "-C", "c", write("qrels", EDGE_QRELS))
    invoke("--db", db, "load", "run", "-C", "c", *(write(name, text) for name, text in EDGE_RUNS.items()))
    recorded = tmp_path / "recorded.duckdb"
    shutil.copyfile(db, recorded)
    other = {"qrels": "intersection", "intersection": "qrels"}[topic_policy]
    for policy in (other, topic_policy):  # the second replaces the current rows of the keys it covers only
        invoke("--db", db, "evaluate", "-C", "c", "-m", "official", "--topics", policy)
        assert floor.main([str(recorded), "c", "--record", "--topics", policy]) == 0
    columns = {
        "topic_scores": "campaign_id, run_id, topic_id, measure, judgment_set, value",
        "evaluation_means": "campaign_id, run_id, measure, judgment_set, topics, value",
        "current_scores": "campaign_id, run_id, topic_id, measure, judgment_set, aggregate, higher_is_better, value",
        "current_means": "campaign_id, run_id, measure, judgment_set, system, team, run_date, topics, measure_name, "
                         "aggregate, higher_is_better, value",
        "evaluation_measures": "measure, measure_name, family, parameters, aggregate, gain_profile",
        "evaluation_inputs": "campaign_id, input_kind, input_name, source_file, source_sha256",
    }
    latest = {"topic_scores": "evaluation_id = 2", "evaluation_means": "evaluation_id = 2",
              "evaluation_measures": "evaluation_id = 2", "evaluation_inputs": "evaluation_id = 2"}
    with duckdb.connect(str(db), read_only=True) as evaluated, duckdb.connect(str(recorded), read_only=True) as floor_db:
        for table, names in columns.items():
            order = f"select {names} from {table} where {{}} order by all"
            expected = evaluated.execute(order.format(latest.get(table, "true"))).fetchall()
            got = floor_db.execute(order.format(latest.get(table, "true"))).fetchall()
            assert len(got) == len(expected) > 0, table
            for got_row, expected_row in zip(got, expected):
                assert got_row[:-1] == expected_row[:-1], table
                if isinstance(expected_row[-1], float):  # a value
                    assert math.isclose(got_row[-1], expected_row[-1], rel_tol=0, abs_tol=TOLERANCE), (table, got_row)
                else:
                    assert got_row[-1] == expected_row[-1], table
        assert floor_db.execute("select count(*) from stale_results").fetchone()[0] == 0
        assert floor_db.execute("select count(*) from scores").fetchone() == evaluated.execute(
            "select count(*) from scores").fetchone()
