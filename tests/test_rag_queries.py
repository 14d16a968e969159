"""The worked queries of docs/rag.md, run on a generated campaign whose runs have ranked lists and
answers, and checked against the same figures computed in pandas."""
from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalWarning

DOC = Path(__file__).resolve().parents[1] / "docs" / "rag.md"
RUNS = [f"team{i}" for i in range(5)]
TOPICS = [f"q{i}" for i in range(8)]


def worked_queries() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Worked queries"):]
    return re.findall(r"```sql\n(.*?)```", section, flags=re.S)


def _insert(con, table: str, frame: pd.DataFrame) -> None:
    rows = frame  # noqa: F841  (read by name: DuckDB's replacement scan)
    con.execute(f"insert into {table} by name select * from rows")


@pytest.fixture(scope="module")
def rag24():
    rng = random.Random(24)
    con = pyeval.connect()
    qrels = [(topic, f"d{d}", rng.choice([0, 0, 1, 2])) for topic in TOPICS for d in range(20)]
    pyeval.load_qrels(con, "rag24", pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    for run in RUNS:
        ranked = [(topic, f"d{d}", float(20 - rank)) for topic in TOPICS
                  for rank, d in enumerate(rng.sample(range(25), 12))]
        pyeval.load_run(con, "rag24", pd.DataFrame(ranked, columns=["query_id", "doc_id", "score"]), name=run)
    con.execute("insert into judgment_sets (campaign_id, judgment_set, kind) values ('rag24', 'nist', 'human')")
    nuggets, labels, answers = [], [], []
    for topic in TOPICS:
        importances = [rng.choice(["vital", "okay"]) for _ in range(rng.randint(2, 9))]
        nuggets += [("rag24", "manual", topic, f"n{i}", i + 1, "text", importance, "human")
                    for i, importance in enumerate(importances)]
        for run in RUNS:
            if (run, topic) == ("team4", "q7"):
                continue  # an unanswered topic
            answers.append(("rag24", run, topic, 50, True, 1, "f", "x"))
            labels += [("rag24", "nist", "manual", run, topic, f"n{i}",
                        rng.choice(["support", "partial_support", "not_support"]), "nist", "f", "x")
                       for i in range(len(importances))]
    _insert(con, "nuggets", pd.DataFrame(nuggets, columns=[
        "campaign_id", "bank", "topic_id", "nugget_id", "nugget_number", "text", "importance", "creator"]))
    _insert(con, "nugget_assignments", pd.DataFrame(labels, columns=[
        "campaign_id", "judgment_set", "bank", "run_id", "topic_id", "nugget_id", "label", "assessor",
        "source_file", "source_sha256"]))
    _insert(con, "answers", pd.DataFrame(answers, columns=[
        "campaign_id", "run_id", "topic_id", "response_length", "length_given", "file_position", "source_file",
        "source_sha256"]))
    retrieval = pyeval.evaluate(con, "rag24", ["nDCG@10"]).per_topic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PyevalWarning)
        answered = pyeval.evaluate(con, "rag24", ["VitalScore"], judgment_set="nist").per_topic
    yield con, retrieval, answered
    con.close()


def test_the_worked_queries_give_the_figures_pandas_gives(rag24):
    con, retrieval, answered = rag24
    first, second, third = worked_queries()
    ndcg = retrieval.groupby("run_id")["value"].mean()
    vital = answered.groupby("run_id")["value"].mean()  # a missing answer counts 0
    rows = con.execute(first).fetchall()
    assert [row[0] for row in rows] == sorted(RUNS, key=lambda run: (-vital[run], run))
    for run, ndcg_10, vital_score in rows:
        assert ndcg_10 == pytest.approx(ndcg[run], rel=1e-12) and vital_score == pytest.approx(vital[run], rel=1e-12)
    merged = retrieval.merge(answered, on=["run_id", "topic_id"], suffixes=("_r", "_a"))
    merged = merged[~((merged["run_id"] == "team4") & (merged["topic_id"] == "q7"))]
    for run, r, topics in con.execute(second).fetchall():
        part = merged[merged["run_id"] == run]
        assert topics == len(part) and r == pytest.approx(part["value_r"].corr(part["value_a"]), rel=1e-9)
    means = answered[~((answered["run_id"] == "team4") & (answered["topic_id"] == "q7"))].groupby("run_id")["value"]
    rows = con.execute(third).fetchall()
    assert [row[0] for row in rows] == sorted(RUNS)
    for run, bank, vital_score, topics in rows:
        assert bank == "manual" and topics == means.size()[run]
        assert vital_score == pytest.approx(means.mean()[run], rel=1e-12)
    assert rows[-1][3] == len(TOPICS) - 1  # team4 did not answer q7
