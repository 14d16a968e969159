"""``pyeval ndeval`` (the ndeval 4.5 drop-in) against the pyndeval README example (exact text),
ir_measures' ERR-IA example, and pyndeval (ndeval.c) on the TREC 2012 Web diversity qrels with
the two real Indri runs, under ndeval's rank-column order and -traditional."""
from __future__ import annotations

import gzip
import math

import pandas as pd
import pytest
from click.testing import CliRunner

from pyeval import sample
from pyeval.cli import main

from ..conftest import FIXTURES
from ..drivers.helpers import pyndeval_values

NDEVAL = FIXTURES / "ndeval"
COLUMNS = ("ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,alpha-DCG@10,"
           "alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,"
           "P-IA@20,strec@5,strec@10,strec@20").split(",")


def ndeval(*arguments):
    return CliRunner().invoke(main, ["ndeval", *map(str, arguments)])


def test_readme_example_byte_for_byte():
    result = ndeval(NDEVAL / "qrels.ndeval", NDEVAL / "run.trec")
    assert result.exit_code == 0, result.output
    assert result.output == (NDEVAL / "recomputed.ndeval-format.csv").read_text()


def test_ir_measures_example():
    result = ndeval(NDEVAL / "irm-example.qrels.ndeval", NDEVAL / "irm-example.run.trec")
    rows = [line.split(",") for line in result.output.splitlines()]
    assert rows[0][2:] == COLUMNS
    err20 = {row[1]: float(row[4]) for row in rows[1:]}
    assert (round(err20["0"], 4), round(err20["1"], 4), round(err20["amean"], 4)) == (0.4659, 0.1803, 0.3231)


def _printed(value: float) -> str:
    return "-nan" if math.isnan(value) else "%.6f" % value


@pytest.fixture(scope="module")
def qrels_2012(tmp_path_factory):
    path = tmp_path_factory.mktemp("ndeval") / "qrels-for-ndeval.txt"
    with gzip.open(NDEVAL / "qrels-for-ndeval.txt.gz", "rb") as handle:
        path.write_bytes(handle.read())
    frame = pd.read_csv(path, sep=" ", header=None, names=["topic", "subtopic", "doc_id", "level"], dtype=str)
    frame["level"] = frame["level"].astype(int)
    return path, frame


@pytest.mark.parametrize("run_name", ["indri-ql", "indri-rm"])
@pytest.mark.parametrize("traditional", [False, True])
def test_web2012_real_runs_against_pyndeval(tmp_path, qrels_2012, run_name, traditional):
    qrels_path, qrels = qrels_2012
    run_path = tmp_path / "run.txt"
    with gzip.open(sample.path(f"runs/{run_name}.txt.gz"), "rb") as handle:
        run_path.write_bytes(handle.read())
    result = ndeval(*(["-traditional"] if traditional else []), qrels_path, run_path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "runid,topic," + ",".join(COLUMNS)
    run = pd.read_csv(run_path, sep=r"\s+", header=None, names=["topic", "q0", "doc_id", "rank", "score", "tag"],
                      dtype={"topic": str, "doc_id": str})
    if traditional:  # ndeval -traditional: score descending, then docno descending
        run = run.sort_values(["topic", "score", "doc_id"], ascending=[True, False, False])
        run["rank"] = run.groupby("topic").cumcount() + 1
    oracle = pyndeval_values(qrels, run[["topic", "doc_id", "rank"]], COLUMNS)
    topics = sorted({topic for topic, _ in oracle}, key=int)
    expected, totals = [], [0.0] * len(COLUMNS)
    for topic in topics:
        row = [oracle[(topic, name)] for name in COLUMNS]
        totals = [a + b for a, b in zip(totals, row)]
        expected.append(f"indri,{topic}," + ",".join(_printed(v) for v in row))
    expected.append("indri,amean," + ",".join(_printed(t / len(topics)) for t in totals))
    assert lines[1:] == expected


def test_complete_run_only_topics_and_zero_rows(write):
    qrels = write("q.txt", "1 1 a 1\n1 2 b 2\n1 1 b 0\n2 1 c 1\n3 1 e 0\n")
    run = write("r.txt", "1 Q0 b 1 2.0 sys\nwt09-1 Q0 a 2 1.0 sys\n7 Q0 x 1 1.0 sys\n3 Q0 e 1 1.0 sys\n")
    plain = ndeval(qrels, run).output.splitlines()
    complete = ndeval("-c", qrels, run).output.splitlines()
    assert [line.split(",")[1] for line in plain[1:]] == ["1", "3", "7", "amean"]  # run topics, numeric
    assert plain[3] == "sys,7," + ",".join(["0.000000"] * 21)  # a run-only topic: zeros, not averaged
    assert plain[2].split(",")[15] == "-nan"  # topic 3 has no relevant document: nNRBP = 0/0
    assert plain[4].split(",")[15] == "-nan"  # ... and poisons the mean
    alpha20 = COLUMNS.index("alpha-nDCG@20") + 2
    assert float(plain[1].split(",")[alpha20]) == 1.0  # b then a: the ideal list
    # means over the 2 common topics, or with -c over the 3 qrels topics
    assert float(plain[4].split(",")[alpha20]) == pytest.approx(0.5, abs=1e-6)
    assert float(complete[4].split(",")[alpha20]) == pytest.approx(1 / 3, abs=1e-6)


def test_alpha_beta_depth_and_traditional_change_the_values(write):
    qrels = write("q.txt", "1 1 a 1\n1 2 b 1\n1 1 c 1\n1 2 c 1\n")
    run = write("r.txt", "1 Q0 a 1 1.0 s\n1 Q0 b 2 3.0 s\n1 Q0 c 3 2.0 s\n")
    base = ndeval(qrels, run).output
    assert ndeval("-alpha", "0.8", qrels, run).output != base
    assert ndeval("-beta", "0.9", qrels, run).output != base
    assert ndeval("-traditional", qrels, run).output != base
    depth = ndeval("-M", "1", qrels, run).output.splitlines()[1].split(",")
    assert depth[COLUMNS.index("strec@20") + 2] == "0.500000"


@pytest.mark.parametrize(
    ("qrels_text", "run_text", "message"),
    [
        ("1 1 a -2\n", "1 Q0 a 1 1.0 s\n", 'syntax error in qrel file ".*" at line 1'),
        ("1 x a 1\n", "1 Q0 a 1 1.0 s\n", "syntax error in qrel file"),
        ("1 1 a 1\n", "1 Q0 a 1 1.0\n", 'syntax error in run file ".*" at line 1'),
        ("1 1 a 1\n", "1 Q0 a 1 1.0 s\n1 Q0 b 1 0.5 s\n", r"duplicate rank \(1\) for topic 1"),
        ("1 1 a 1\n", "1 Q0 a 1 1.0 s\n1 Q0 a 2 0.5 s\n", r"duplicate docno \(a\) for topic 1"),
        ("1 1 a 1\n1 1 a 0\n", "1 Q0 a 1 1.0 s\n", "judges a again"),
    ],
)
def test_errors_exit_1(write, qrels_text, run_text, message):
    result = ndeval(write("q.txt", qrels_text), write("r.txt", run_text))
    assert result.exit_code == 1
    assert pytest.importorskip("re").search(message, result.output), result.output


def test_duplicate_rank_is_fine_with_traditional(write):
    result = ndeval("-traditional", write("q.txt", "1 1 a 1\n"), write("r.txt", "1 Q0 a 1 1.0 s\n1 Q0 b 1 0.5 s\n"))
    assert result.exit_code == 0
