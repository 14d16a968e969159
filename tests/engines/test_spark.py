"""``--engine spark``: the same views, stages and metric SQL on a local Spark session give the same
per-topic values as DuckDB (to 1e-9) for every measure that runs on both; the others are refused
with a reason and listed in docs/engines.md.

One Spark session for the module (local[2]) and one small graded campaign (trec_eval's
qrels.rel_level: levels -1 to 4, two runs). Skipped only when pyspark cannot be imported or no
Java is installed."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval.core import evaluation as ev
from pyeval.errors import MeasureParamError, PyevalError
from pyeval.measures import definitions, make, registry
from pyeval.core.request import EvaluationRequest

from ..conftest import FIXTURES

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'pyeval[spark]')")
pytest.importorskip("sqlglot", reason="sqlglot is not installed (pip install 'pyeval[spark]')")
if shutil.which("java") is None:
    pytest.skip("no Java runtime (apt-get install openjdk-17-jre-headless)", allow_module_level=True)

from pyeval.engines import spark as engine  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs" / "engines.md"
CAMPAIGN = "graded"
RUNS = ["full", "trunc"]
#: Parameter variants on top of every measure's defaults: cutoffs, thresholds, gain profiles
#: (built in and stored), persistence.
VARIANTS = [
    "nDCG@10", "nDCG(gain=exp)@10", "nDCG(gain=graded)", "DCG(gain=steep)@5", "P(rel=2)@5", "AP(rel=2)",
    "AP@100", "Q(gain=steep)", "Q(gain=adjust)@20", "ERR@20", "nERR(gain=graded,stop=ntcir)@10", "RBP(p=0.8)",
    "RBPResid(p=0.8)", "Judged@10", "iRBU(u=0.9)@10", "GAP(gain=exp)", "AnDCG(gain=exp)@10",
    "BprefN(gain=exp)", "RelString@10", "IPrec(recall=0.5)", "SetF(beta=0.5)", "RprecMult(m=2)",
    "Utility(p1=1,p2=-1,p3=0,p4=0,collection_size=1000)", "nRBP(p=0.8)@20", "EBR(beta=2)",
    "OMeasure(gain=exp)", "RMeasure(gain=exp)", "RnDCG(gain=exp)", "G(gain=exp)", "BinG(rel=2)",
    "Success@1", "RR(rel=2)", "NumRet(rel=2)", "Bpref(rel=2)", "JKnDCG(gain=exp)@10",
]


def _default(definition):
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in definition.params if p.required}
    return make(definition, **params)


def every_measure():
    """Every measure definition with its defaults, and the variants."""
    measures = [_default(d) for d in definitions()]
    measures += [m for text in VARIANTS for m in ev.parse_measures(text)]
    return list(dict.fromkeys(measures))


@pytest.fixture(scope="module")
def spark():
    return engine.session(2)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("spark") / "w.duckdb"
    con = pyeval.connect(str(path))
    pyeval.load_qrels(con, CAMPAIGN, FIXTURES / "trec_eval" / "qrels.rel_level")
    pyeval.load_run(con, CAMPAIGN, FIXTURES / "trec_eval" / "results.test", name="full")
    pyeval.load_run(con, CAMPAIGN, FIXTURES / "trec_eval" / "results.trunc", name="trunc")
    pyeval.define_gain_profile(con, CAMPAIGN, "graded", "1:3:7:15")
    yield con
    con.close()


@pytest.fixture(scope="module")
def both(spark, warehouse):
    """Per-topic values of every measure that runs on Spark, from DuckDB and from Spark."""
    measures = [m for m in every_measure() if engine.supported(m) is None and m.definition.staging == "adhoc"]
    request = EvaluationRequest(CAMPAIGN, tuple(measures), runs=tuple(RUNS), ordering="trec")
    duck = ev.compute(warehouse, request)
    sparked = engine.compute(spark, warehouse, request)
    return measures, duck, sparked


def test_every_measure_that_runs_on_both_engines_gives_the_same_per_topic_values(both):
    measures, duck, sparked = both
    keys = ["run_id", "topic_id", "measure"]
    assert len(duck) == len(sparked)
    merged = duck.merge(sparked, on=keys, how="outer", suffixes=("_duckdb", "_spark"), indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    left, right = merged["value_duckdb"].astype(float), merged["value_spark"].astype(float)
    assert (left.isna() == right.isna()).all()
    difference = (left - right).abs()
    worst = merged.assign(difference=difference).sort_values("difference").tail(3)
    assert difference.max() <= 1e-9, worst
    texts = merged["value_text_duckdb"].notna() | merged["value_text_spark"].notna()
    assert (merged.loc[texts, "value_text_duckdb"] == merged.loc[texts, "value_text_spark"]).all()
    # every SQL family but the documented ones ran, with several parameter settings each
    ran = {m.family for m in measures}
    adhoc_sql = {d.family for d in definitions() if d.staging == "adhoc" and registry.driver(d.family) is None}
    assert ran == adhoc_sql - set(engine.UNSUPPORTED_FAMILIES)
    assert len(set(merged["measure"])) == len(measures) > 90
    print(f"{len(measures)} measures, {len(merged)} per-topic values, largest difference {difference.max():.2g}")


def test_product_is_spark_s_product_aggregate_with_duckdb_s_nulls(spark, warehouse):
    """DuckDB's product(x), grouped and over a window, on the session (register_functions):
    nulls skipped, null when none, one multiplication per row in the window's order."""
    query = ("select k, i, product(c) over (partition by k order by i rows between unbounded preceding "
             "and 1 preceding) as p from (values ('a', 1, 0.5), ('a', 2, null), ('a', 3, 0.25), ('a', 4, 3.0), "
             "('b', 1, null), ('b', 2, 2.0)) as t(k, i, c) order by k, i")
    duck = warehouse.sql(query.replace("0.5", "0.5::double")).df()
    sparked = spark.sql(engine.transpile.to_spark(query)).toPandas()
    assert sparked["p"].tolist()[1:4] == duck["p"].tolist()[1:4] == [0.5, 0.5, 0.125]
    assert sparked["p"].isna().tolist() == duck["p"].isna().tolist() == [True, False, False, False, True, True]
    grouped = "select k, product(c) as p from (values ('a', 2.0), ('a', null), ('b', null)) as t(k, c) group by k order by k"
    assert spark.sql(engine.transpile.to_spark(grouped)).toPandas()["p"].fillna(-1).tolist() == [2.0, -1]


def test_requested_measures_are_an_inline_table_spark_broadcasts(spark):
    """A family's requested_measures reach Spark as an inline table (values bound, nulls and types
    kept) whose size Spark knows, so that every join of the family broadcasts it."""
    from pyeval.core import stages

    measures = [m for m in every_measure() if m.family == "cwl"]
    frame = stages.requested_frame("cwl", measures)
    requested = engine._requested(spark, frame)
    optimized = requested._jdf.queryExecution().optimizedPlan()
    assert optimized.nodeName() == "LocalRelation" and int(str(optimized.stats().sizeInBytes())) < 10_000
    back = requested.toPandas()
    assert list(back.columns) == list(frame.columns) and len(back) == len(frame)
    for column in frame.columns:
        assert back[column].isna().tolist() == frame[column].isna().tolist(), column
        kept = frame[column].notna()
        assert back.loc[kept, column].tolist() == frame.loc[kept, column].tolist(), column
    assert dict(requested.dtypes)["cutoff"] == "bigint" and dict(requested.dtypes)["T"] == "double"


def test_measures_that_do_not_run_on_spark_are_refused_and_documented(spark, warehouse):
    text = DOCS.read_text(encoding="utf-8")
    refused = [m for m in every_measure() if engine.supported(m) is not None]
    assert refused
    for measure in refused:
        if registry.driver(measure.family) is not None or measure.family in engine.UNSUPPORTED_FAMILIES:
            assert f"`{measure.family}`" in text, measure.family
        else:
            assert f"`{measure.definition.staging}`" in text, measure.definition.staging
    for family, reason in engine.UNSUPPORTED_FAMILIES.items():
        assert reason.split(";")[0] in " ".join(text.split()), family
    with pytest.raises(PyevalError, match="does not run on Spark: .*recursive"):
        engine.evaluate(warehouse, CAMPAIGN, ["PrefsSimp"], spark=spark, store=False)


def test_evaluate_on_spark_stores_the_scores_in_the_warehouse(spark, warehouse):
    measures = ["AP", "nDCG@10", "ERR@20", "Q(gain=graded)"]
    reference = pyeval.evaluate(warehouse, CAMPAIGN, measures, store=False)
    result = engine.evaluate(warehouse, CAMPAIGN, measures, spark=spark)
    assert result.evaluation_id is not None
    stored = warehouse.sql(
        "select run_id, topic_id, measure, value from topic_scores where evaluation_id = $e "
        "order by all", params={"e": result.evaluation_id}).df()
    expected = reference.per_topic.sort_values(["run_id", "topic_id", "measure"]).reset_index(drop=True)
    assert len(stored) == len(expected)
    assert np.allclose(stored.sort_values(["run_id", "topic_id", "measure"])["value"].to_numpy(),
                       expected["value"].to_numpy(), atol=1e-9, rtol=0)
    settings = warehouse.sql("select settings from evaluations where evaluation_id = $e",
                             params={"e": result.evaluation_id}).fetchall()[0][0]
    assert '"engine": "spark"' in settings
    pd.testing.assert_frame_equal(result.means, reference.means, check_exact=False, atol=1e-9, rtol=0)
    # a family's own error (gdeval's ERR takes gains up to 4) is the same one-line error
    with pytest.raises(MeasureParamError, match="metric_cascade: stop=gdeval takes gains up to 4"):
        engine.evaluate(warehouse, CAMPAIGN, ["ERR(gain=graded)"], spark=spark, store=False)
    # the view `scores` serves them like any evaluation's
    assert warehouse.sql("select count(*) from scores where measure = 'ERR@20'").fetchall()[0][0] == len(
        expected[expected["measure"] == "ERR@20"])


def test_cli_evaluate_engine_spark_reads_a_parquet_export(spark, warehouse, tmp_path):
    from click.testing import CliRunner

    from pyeval.cli import main

    export = tmp_path / "export"
    pyeval.export_parquet(warehouse, export)
    source = tmp_path / "copy.duckdb"
    pyeval.snapshot(warehouse, source)
    result = CliRunner().invoke(main, ["--db", str(source), "evaluate", "-C", CAMPAIGN, "-m", "P@10", "-m", "RR",
                                       "--engine", "spark", "--export", str(export), "--format", "csv"])
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(__import__("io").StringIO(result.stdout)).set_index("run_id")
    expected = pyeval.evaluate(warehouse, CAMPAIGN, ["P@10", "RR"], store=False).wide()
    assert np.allclose(printed[["P@10", "RR"]].to_numpy(), expected.to_numpy(), atol=1e-9)
    assert "stored as evaluation" in result.stderr
    refused = CliRunner().invoke(main, ["--db", str(source), "evaluate", "-C", CAMPAIGN, "-m", "AP", "--export",
                                        str(export)])
    assert refused.exit_code == 1 and "--export needs --engine spark" in refused.output


def test_the_inline_profile_rule_on_spark(spark, warehouse):
    """The orchestrator's rule holds on Spark: an inline profile stays only with a stored
    evaluation (not stored, failed in a family, stored)."""
    from ..test_evaluation import check_inline_profile_rule

    check_inline_profile_rule(warehouse, CAMPAIGN, engine="spark", spark=spark)


def test_the_diversity_families_give_the_same_values_on_spark(spark):
    """The bundled TREC 2012 Web diversity sample (two runs, uniform intents): every diversity
    SQL family (D-, D#-, DIN-, DIN#-measures, IA, I-rec, EfP, P+Q#) through the same plan on
    both engines, per-topic values equal to 1e-12; the Python drivers are refused in one line."""
    from pyeval import sample
    from pyeval.demo import DIVERSITY_MEASURES

    con = pyeval.connect()
    try:
        pyeval.load_qrels(con, "web", sample.path("qrels.diversity.txt.gz"))
        pyeval.load_intents(con, "web", sample.path("intents.uniform.txt"))
        for name in ("indri-ql", "indri-rm"):
            pyeval.load_run(con, "web", sample.path(f"runs/{name}.txt.gz"), name=name)
        request = EvaluationRequest.build("web", [*DIVERSITY_MEASURES, "D_Q(probs=given)@20", "IA_AP@20"],
                                          runs=["indri-ql", "indri-rm"])
        duck = ev.compute(con, request)
        sparked = engine.compute(spark, con, request)
        keys = ["run_id", "topic_id", "measure"]
        merged = duck.merge(sparked, on=keys, how="outer", suffixes=("_duckdb", "_spark"), indicator=True)
        assert (merged["_merge"] == "both").all() and len(merged) == len(duck) > 0
        difference = (merged["value_duckdb"].astype(float) - merged["value_spark"].astype(float)).abs()
        assert difference.max() <= 1e-12, merged.assign(d=difference).sort_values("d").tail(3)
        assert set(merged["measure"]) == {str(m) for m in request.measures}
        with pytest.raises(PyevalError, match="measure alpha_nDCG@20 does not run on Spark: family ndeval is computed "
                                              "by a Python driver"):
            engine.compute(spark, con, EvaluationRequest.build("web", ["alpha_nDCG@20"], runs=["indri-ql"]))
    finally:
        con.close()


def test_a_judgment_set_is_evaluated_alike_on_spark(spark, warehouse):
    """The request's judgment set is a bound stage parameter on both engines (issue 26): a
    binarised set gives different values from the official one, and the same on Spark as on
    DuckDB."""
    from pyeval.judgments.derive import derive

    derive(warehouse, CAMPAIGN, "strict", "binarise", ["official"], threshold=3, replace=True)
    measures = tuple(ev.parse_measures("AP")) + tuple(ev.parse_measures("nDCG@10"))
    strict = EvaluationRequest(CAMPAIGN, measures, runs=tuple(RUNS), ordering="trec", judgment_set="strict")
    duck = ev.compute(warehouse, strict).sort_values(["run_id", "topic_id", "measure"], ignore_index=True)
    sparked = engine.compute(spark, warehouse, strict).sort_values(["run_id", "topic_id", "measure"],
                                                                    ignore_index=True)
    official = ev.compute(warehouse, strict.replace(judgment_set="official")).sort_values(
        ["run_id", "topic_id", "measure"], ignore_index=True)
    assert list(duck["topic_id"]) == list(sparked["topic_id"])
    np.testing.assert_allclose(sparked["value"].astype(float), duck["value"].astype(float), atol=1e-12)
    assert not np.allclose(official["value"].astype(float), duck["value"].astype(float))
    stored = ev.evaluate(warehouse, CAMPAIGN, ["AP"], judgment_set="strict", engine="spark", spark=spark)
    assert warehouse.execute("select judgment_set from evaluations where evaluation_id = $e",
                             {"e": stored.evaluation_id}).fetchone() == ("strict",)


def test_evaluate_on_spark_under_a_judgment_set(spark, warehouse, tmp_path):
    from click.testing import CliRunner

    from pyeval.cli import main

    source = tmp_path / "sets.duckdb"
    pyeval.snapshot(warehouse, source)
    con = pyeval.connect(str(source))
    stricter = pd.read_csv(FIXTURES / "trec_eval" / "qrels.rel_level", sep=r"\s+", header=None,
                           names=["query_id", "iteration", "doc_id", "relevance"], dtype={"query_id": str})
    stricter["relevance"] = stricter["relevance"].where(stricter["relevance"] <= 0, stricter["relevance"] - 1)
    pyeval.load_qrels(con, CAMPAIGN, stricter[["query_id", "doc_id", "relevance"]], judgment_set="stricter")
    measures = ["AP", "nDCG@10", "ERR@20"]
    reference = pyeval.evaluate(con, CAMPAIGN, measures, judgment_set="stricter", store=False)
    result = engine.evaluate(con, CAMPAIGN, measures, spark=spark, judgment_set="stricter")
    pd.testing.assert_frame_equal(result.means, reference.means, check_exact=False, atol=1e-9, rtol=0)
    official = pyeval.evaluate(con, CAMPAIGN, measures, store=False)
    assert not np.allclose(official.means["value"], reference.means["value"])
    assert con.execute("select distinct judgment_set from topic_scores where evaluation_id = $e",
                       {"e": result.evaluation_id}).fetchall() == [("stricter",)]
    assert con.execute("select input_name from evaluation_inputs where evaluation_id = $e and input_kind = 'qrels'",
                       {"e": result.evaluation_id}).fetchall() == [("stricter",)]
    with pytest.raises(PyevalError, match="has no judgment set 'nope'"):
        engine.evaluate(con, CAMPAIGN, measures, spark=spark, judgment_set="nope")
    con.close()
    done = CliRunner().invoke(main, ["--db", str(source), "evaluate", "-C", CAMPAIGN, "-m", "AP", "--engine",
                                     "spark", "--judgments", "stricter", "--format", "csv"])
    assert done.exit_code == 0, done.output
    assert "stored as evaluation" in done.stderr
