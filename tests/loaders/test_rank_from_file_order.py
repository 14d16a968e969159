"""Ranks from the file's order (sql/loaders/run_insert.sql): a topic whose lines are already in
trec_eval's order takes its trec_rank from its line numbers, the others are sorted; the stored
rows equal trec_eval's order (score descending, docno descending in byte order) either way."""
from __future__ import annotations

import json
import random

import pandas as pd
import pytest

import pyeval
from pyeval.core import sqlfiles


def trec_order(lines: list[tuple[str, str, float]]) -> dict[tuple[str, str], int]:
    """trec_eval's rank of each (topic, docno): score descending, then docno descending (bytes)."""
    ranks = {}
    for topic in {topic for topic, _, _ in lines}:
        ordered = sorted((line for line in lines if line[0] == topic),
                         key=lambda line: (-line[2], [-b for b in line[1].encode()] + [1]))
        ranks.update({(topic, doc): rank for rank, (_, doc, _) in enumerate(ordered, 1)})
    return ranks


def topic_lines(rng: random.Random, topic: str, shape: str) -> list[tuple[str, str, float]]:
    """One topic's lines in file order: ``shape`` says how they stand against trec_eval's order."""
    docs = [f"d{rng.randrange(10**6)}-{i}" for i in range(rng.randrange(2, 30))]
    scores = [round(rng.uniform(0, 3), 1) for _ in docs]  # one decimal: many ties
    lines = [(topic, doc, score) for doc, score in zip(docs, scores)]
    ordered = sorted(lines, key=lambda line: (-line[2], [-b for b in line[1].encode()] + [1]))
    if shape == "ordered":
        return ordered
    if shape == "ties reversed":  # scores descending, tied docnos ascending: trec_eval still sorts them
        return sorted(lines, key=lambda line: (-line[2], line[1]))
    if shape == "ascending":
        return ordered[::-1]
    shuffled = ordered[:]
    rng.shuffle(shuffled)
    return shuffled


def generated_run(seed: int) -> tuple[list[tuple[str, str, float]], list[str]]:
    """Lines of a run mixing every shape, with one topic split in two blocks (its lines apart)."""
    rng = random.Random(seed)
    shapes = ["ordered", "ordered", "ordered", "ties reversed", "ascending", "shuffled"]
    blocks = [topic_lines(rng, f"q{number}", rng.choice(shapes)) for number in range(40)]
    split = topic_lines(rng, "q-split", "ordered")
    blocks.insert(5, split[: len(split) // 2])
    blocks.insert(20, split[len(split) // 2:])
    return [line for block in blocks for line in block], shapes


@pytest.mark.parametrize("seed", range(4))
def test_stored_ranks_equal_trec_order_whatever_the_file_order(con, write, seed):
    lines, _ = generated_run(seed)
    other, _ = generated_run(seed + 100)
    paths = [write(f"run{i}.txt", "".join(f"{t} Q0 {d} {k} {s} tag{i}\n" for k, (t, d, s) in enumerate(run, 1)))
             for i, run in enumerate((lines, other))]
    pyeval.load_qrels(con, "c", write("qrels", "".join(f"{t} 0 {d} 1\n" for t, d, _ in lines[::3])))
    pyeval.load_runs(con, "c", paths)
    for index, run in enumerate((lines, other)):
        expected = trec_order(run)
        stored = dict(((t, d), r) for t, d, r in con.execute(
            "select topic_id, doc_id, trec_rank from run_entries where run_id = $run",
            {"run": f"tag{index}"}).fetchall())
        assert stored == expected
        # the rank column and the file's line numbers are kept as given
        given = con.execute("select rank_given, file_position from run_entries where run_id = $run "
                            "order by file_position", {"run": f"tag{index}"}).fetchall()
        assert given == [(k, k) for k in range(1, len(run) + 1)]


def test_a_run_without_ranks_is_stored_in_trec_order(con, write):
    lines, _ = generated_run(7)
    pyeval.load_qrels(con, "c", write("qrels", "".join(f"{t} 0 {d} 1\n" for t, d, _ in lines[::3])))
    frame = pd.DataFrame(lines, columns=["query_id", "doc_id", "score"])
    pyeval.load_run(con, "c", frame, name="frame")
    expected = trec_order(lines)
    stored = con.execute("select topic_id, doc_id, rank_given, trec_rank, file_position from run_entries").fetchall()
    assert {(t, d): r for t, d, _, r, _ in stored} == expected
    assert all(given == rank for _, _, given, rank, _ in stored)
    # topics in the order they first appear, each topic's lines in trec order
    by_position = [(t, r) for t, _, _, r, _ in sorted(stored, key=lambda row: row[4])]
    first_seen = list(dict.fromkeys(t for t, _, _ in lines))
    assert by_position == [(t, r) for t in first_seen for r in range(1, sum(1 for x in lines if x[0] == t) + 1)]


def _window_rows(con, batch: list[tuple[int, int, str, str, float]]) -> int:
    """How many lines run_insert.sql's sorting window reads when it stores ``batch`` (file_index,
    line_number, topic_id, doc_id, score), from DuckDB's profile of the statement."""
    con.execute("create or replace temp table batch_lines (file_index integer, line_number bigint, "
                "topic_id varchar, doc_id varchar, score double)")
    con.executemany("insert into batch_lines values (?, ?, ?, ?, ?)", batch)
    con.execute("create or replace temp view run_batch as select *, null::bigint as rank_given from batch_lines "
                "order by file_index, line_number")
    con.execute("create or replace temp table batch_runs as select 0 as file_index, 'r' as run_id")
    return _profiled_window_rows(con, lambda: con.execute(
        sqlfiles.read("loaders/run_insert.sql"), {"campaign_id": "c", "first_file": 0, "last_file": 0,
                                                      "order_check_lines": 0}))


def _profiled_window_rows(con, last_statement) -> int:
    """The rows of the one sorting window (WINDOW, not the streamed check's STREAMING_WINDOW) in
    DuckDB's profile of the last statement ``last_statement()`` runs on ``con``."""
    profile = con.execute("select current_setting('temp_directory')").fetchone()[0] + "/run_insert_profile.json"
    con.execute("set enable_profiling = 'json'")
    con.execute("set profiling_output = $path", {"path": profile})
    try:
        last_statement()
    finally:
        con.execute("reset enable_profiling")
    with open(profile) as handle:
        tree = json.load(handle)

    def operators(node):
        yield node
        for child in node.get("children", []):
            yield from operators(child)

    roots = tree.get("operator", tree.get("children", []))
    windows = [node for root in roots for node in operators(root)
               if (node.get("name") or node.get("operator_name") or "").strip() == "WINDOW"]
    streamed = [node for root in roots for node in operators(root)
                if (node.get("name") or node.get("operator_name") or "").strip() == "STREAMING_WINDOW"]
    assert windows and len(streamed) == 1  # the check is streamed, not sorted
    return max(node.get("intermediate_rows", node.get("operator_cardinality")) for node in windows)


def test_only_the_topics_out_of_order_are_sorted(con, tmp_path):
    con.execute("set temp_directory = $folder", {"folder": str(tmp_path)})
    rng = random.Random(3)
    ordered = [line for n in range(20) for line in topic_lines(rng, f"q{n}", "ordered")]
    shuffled = [line for n in range(5) for line in topic_lines(rng, f"s{n}", "shuffled")]
    batch = [(0, k, t, d, s) for k, (t, d, s) in enumerate(ordered + shuffled, 1)]
    assert _window_rows(con, batch) == len(shuffled)
    con.execute("delete from run_entries")
    assert _window_rows(con, [(0, k, t, d, s) for k, (t, d, s) in enumerate(ordered, 1)]) == 0
    stored = dict(((t, d), r) for t, d, r in con.execute("select topic_id, doc_id, trec_rank from run_entries").fetchall())
    assert stored == trec_order(ordered)


@pytest.mark.parametrize("form", ["text", "parquet"])
@pytest.mark.parametrize("lines_short", [0, 1])
def test_a_loaded_file_in_trec_order_is_not_sorted(con, tmp_path, write, form, monkeypatch, lines_short):
    """Through the loaders' own staging (the fast path's rows, run_fast_input.sql) the check sees
    the file's order: a run file in trec order goes through no sorting window at all, once it
    has ORDER_CHECK_LINES lines (the rule, counted by the statement: one line fewer, every line
    is sorted)."""
    from pyeval.loaders import transient

    con.execute("set temp_directory = $folder", {"folder": str(tmp_path)})
    rng = random.Random(11)
    lines = [line for n in range(30) for line in topic_lines(rng, f"q{n}", "ordered")]
    qrels = write("qrels", "".join(f"{t} 0 {d} 1\n" for t, d, _ in lines[::4]))
    run = write("run.txt", "".join(f"{t} Q0 {d} {k} {s} tag\n" for k, (t, d, s) in enumerate(lines, 1)))
    if form == "parquet":
        run = tmp_path / "run.parquet"
        frame = pd.DataFrame(lines, columns=["query_id", "doc_id", "score"])
        frame.to_parquet(run)
    monkeypatch.setattr(transient, "ORDER_CHECK_LINES", len(lines) + lines_short)
    sorted_lines = _profiled_window_rows(con, lambda: transient.stage_pair(con, "c", qrels, run, "r"))
    assert sorted_lines == (len(lines) if lines_short else 0)
    stored = dict(((t, d), r) for t, d, r in con.execute("select topic_id, doc_id, trec_rank from run_entries").fetchall())
    assert stored == trec_order(lines)


@pytest.mark.parametrize("seed", range(4))
def test_ranks_from_the_file_order_equal_the_sorted_ranks(con, seed):
    """run_insert.sql with the order check on (as for big files) over two files of every shape
    (in order, tied docnos reversed, ascending, shuffled, a topic split in two blocks), with and
    without a rank column: the ranks and file positions the window alone gives."""
    runs = [generated_run(seed)[0], generated_run(seed + 50)[0]]
    batch = [(index, k, t, d, s) for index, run in enumerate(runs) for k, (t, d, s) in enumerate(run, 1)]
    con.execute("create or replace temp table batch_lines (file_index integer, line_number bigint, "
                "topic_id varchar, doc_id varchar, score double)")
    con.executemany("insert into batch_lines values (?, ?, ?, ?, ?)", batch)
    con.execute("create or replace temp table batch_runs as select * from (values (0, 'a'), (1, 'b')) as t(file_index, run_id)")
    for given in (True, False):  # a rank column given, or ranks from the scores
        con.execute("create or replace temp view run_batch as select *, "
                    + ("line_number" if given else "null::bigint") + " as rank_given from batch_lines "
                    "order by file_index, line_number")
        stored = {}
        for check_order in (0, None):  # the check always, and never
            con.execute("delete from run_entries")
            con.execute(sqlfiles.read("loaders/run_insert.sql"),
                        {"campaign_id": "c", "first_file": 0, "last_file": 1, "order_check_lines": check_order})
            stored[check_order] = sorted(con.execute(
                "select run_id, topic_id, doc_id, rank_given, file_position, trec_rank from run_entries").fetchall())
        assert stored[0] == stored[None]
        for index, run in enumerate(runs):
            expected = trec_order(run)
            assert {(t, d): r for run_id, t, d, _, _, r in stored[0] if run_id == "ab"[index]} == expected
