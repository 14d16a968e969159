"""bench/bench_scale.py (issue 40): the generated Parquet files hold the text files' rows in
their order, with the columns ranx and pyeval read; the floor's one statement computes
pytrec_eval's means from text and from Parquet; a process that failed is named for why."""
from __future__ import annotations

import importlib.util
import sys

import duckdb
import pytest

from ..conftest import FIXTURES

BENCH = FIXTURES.parent.parent / "bench"


@pytest.fixture(scope="module")
def bench(request):
    sys.path.insert(0, str(BENCH))  # the script imports bench/common.py as `common`
    request.addfinalizer(lambda: sys.path.remove(str(BENCH)))
    spec = importlib.util.spec_from_file_location("bench_scale", BENCH / "bench_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data(bench, tmp_path_factory):
    return bench.prepare(tmp_path_factory.mktemp("scale"), 60)


def test_parquet_holds_the_text_rows_in_order(bench, data):
    import common

    assert (common.QRELS_PER_TOPIC, common.QRELS_RETRIEVED) == (200, 150)  # restored after generating
    con = duckdb.connect()
    text = con.execute("select column0, column2, column3, column4, column5 from read_csv(?, delim=' ', "
                       "header=false, all_varchar=true)", [data["run_file"]]).fetchall()
    parquet = con.execute("select q_id, doc_id, rank::varchar, score, run_tag from read_parquet(?)",
                          [data["run_parquet"]]).fetchall()
    assert len(parquet) == 60 * bench.DOCS
    assert [(q, d, r, float(s), t) for q, d, r, s, t in text] == parquet
    qrels = con.execute("select count(*), count(distinct q_id) from read_parquet(?)",
                        [data["qrels_parquet"]]).fetchone()
    assert qrels == (60 * bench.JUDGED_PER_QUERY, 60)
    assert con.execute("select column_name, column_type from (describe select * from read_parquet(?))",
                       [data["qrels_parquet"]]).fetchall() == [("q_id", "VARCHAR"), ("doc_id", "VARCHAR"),
                                                               ("score", "BIGINT")]


@pytest.mark.parametrize("fmt", ["text", "parquet"])
def test_floor_statement_gives_pytrec_evals_means(bench, data, fmt):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    with open(data["qrels_file"]) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(data["run_file"]) as f:
        run = pytrec_eval.parse_run(f)
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, set(bench.TREC_MEASURES)).evaluate(run)
    expected = {bench.KEYS[m]: sum(v[m] for v in per_topic.values()) / len(per_topic)
                for m in ("map", "ndcg_cut_10", "recip_rank")}
    run_source, qrels_source = bench.FLOOR_SOURCES[fmt]
    qrels_path, run_path = (data["qrels_file"], data["run_file"]) if fmt == "text" else \
        (data["qrels_parquet"], data["run_parquet"])
    sql = bench.FLOOR_SQL.replace("RUN_SOURCE", run_source).replace("QRELS_SOURCE", qrels_source)
    sql = sql.replace("RUN_PATH", "$run").replace("QRELS_PATH", "$qrels")
    row = duckdb.connect().execute(sql, {"run": run_path, "qrels": qrels_path}).fetchone()
    assert dict(zip(("AP", "nDCG@10", "RR"), row)) == pytest.approx(expected, abs=1e-12)


def test_a_failed_process_is_named_for_why(bench):
    def result(returncode, wall_s, error=""):
        return bench.classify({"returncode": returncode, "wall_s": wall_s, "peak_rss_mb": 9000.0, "error": error}, 600)

    assert "stopped" not in result(0, 10)
    assert result(137, 600)["stopped"] == "over the time cap of 600 s"
    assert result(137, 100)["stopped"].startswith("out of memory: killed by the kernel at 9,000 MiB")
    assert result(1, 50, "...\nMemoryError\n")["stopped"].startswith("out of memory (an allocation refused")
    assert result(1, 50, "ValueError: no")["stopped"] == "failed"
