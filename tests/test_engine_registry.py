"""The engines of ``pyeval evaluate --engine`` are registered objects (pyeval.core.engine,
pyeval/engines/): the vocabulary's names and meanings, each engine answering which families it
computes, and the orchestrator asking it before anything runs (no pyspark needed here)."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import pyeval
from pyeval import vocabulary
from pyeval.cli import main
from pyeval.core import engine as engines
from pyeval.errors import PyevalError
from pyeval.measures import registry

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 1\n"
RUN = "1 Q0 a 1 0.9 r\n1 Q0 b 2 0.5 r\n2 Q0 a 1 1.0 r\n"


def test_every_engine_of_the_vocabulary_is_registered_with_its_meaning():
    assert engines.registered() == vocabulary.names(vocabulary.ENGINES)
    for term in vocabulary.ENGINES:
        chosen = engines.engine(term.name)
        assert (chosen.name, chosen.meaning) == (term.name, term.meaning)


def test_an_engine_is_registered_once_under_a_name_of_the_vocabulary():
    class Other:
        name, meaning, title = "other", "elsewhere", "Other"

    with pytest.raises(ValueError, match="must be one of duckdb, spark"):
        engines.register_engine(Other())
    with pytest.raises(ValueError, match="registered twice"):
        engines.register_engine(engines.engine("duckdb"))
    with pytest.raises(PyevalError, match="engine must be one of duckdb, spark; got 'other'"):
        engines.engine("other")


def test_duckdb_computes_every_family_and_spark_the_sql_families_it_can_run():
    from pyeval.engines import spark

    families = {d.family for d in registry.definitions()}
    duckdb, sparked = engines.engine("duckdb"), engines.engine("spark")
    assert all(duckdb.supports(family) for family in families)
    assert {f for f in families if sparked.supports(f)} == set(registry.sql_families()) - set(spark.UNSUPPORTED_FAMILIES)
    assert sparked.unsupported("ndeval").startswith("family ndeval is computed by a Python driver")


@pytest.fixture
def campaign(con, write):
    pyeval.load_qrels(con, "c", write("q.txt", QRELS))
    pyeval.load_run(con, "c", write("r.txt", RUN))
    return con


@pytest.mark.filterwarnings("ignore::pyeval.errors.SingleIntentWarning")
def test_the_orchestrator_asks_the_engine_before_it_computes(campaign, monkeypatch):
    """A family the engine does not compute is refused in one line, before the engine starts
    (no Spark session is made: pyspark need not be installed)."""
    computed = []
    monkeypatch.setattr(type(engines.engine("spark")), "compute", lambda self, *args, **kw: computed.append(args))
    with pytest.raises(PyevalError) as raised:
        pyeval.evaluate(campaign, "c", ["AP", "alpha_nDCG@20"], engine="spark", store=False)
    assert str(raised.value).startswith("measure alpha_nDCG@20 does not run on Spark: family ndeval is computed")
    assert str(raised.value).endswith("(use engine='duckdb')") and computed == []
    assert raised.value.command_line.endswith("(use --engine duckdb)")


@pytest.mark.filterwarnings("ignore::pyeval.errors.SingleIntentWarning")
def test_the_cli_refuses_an_unsupported_family_in_one_line(tmp_path, write):
    db = str(tmp_path / "w.duckdb")
    con = pyeval.connect(db)
    pyeval.load_qrels(con, "c", write("q.txt", QRELS))
    pyeval.load_run(con, "c", write("r.txt", RUN))
    con.close()
    result = CliRunner().invoke(main, ["--db", db, "evaluate", "-C", "c", "-m", "alpha_nDCG@20", "--engine", "spark"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "measure alpha_nDCG@20 does not run on Spark: family ndeval" in result.output
    assert "(use --engine duckdb)" in result.output


def test_the_cli_gives_spark_its_cores_and_driver_memory(tmp_path, write, monkeypatch):
    """--spark-cores and --spark-memory reach the session the Spark engine makes; they need
    --engine spark, and a size the JVM cannot read is refused in one line before any JVM starts."""
    from pyeval.engines import spark

    db = str(tmp_path / "w.duckdb")
    con = pyeval.connect(db)
    pyeval.load_qrels(con, "c", write("q.txt", QRELS))
    pyeval.load_run(con, "c", write("r.txt", RUN))
    con.close()
    sessions = []

    def session(cores=None, *, memory=spark.DRIVER_MEMORY):
        sessions.append((cores, memory))
        raise PyevalError("no Spark here")

    monkeypatch.setattr(spark, "session", session)
    evaluate = ["--db", db, "evaluate", "-C", "c", "-m", "P@10", "--no-store"]
    result = CliRunner().invoke(main, [*evaluate, "--engine", "spark", "--spark-cores", "3", "--spark-memory", "6g"])
    assert "no Spark here" in result.output and sessions == [(3, "6g")]
    CliRunner().invoke(main, [*evaluate, "--engine", "spark"])
    assert sessions[-1] == (None, "2g")
    with pytest.raises(PyevalError, match="no Spark here"), pyeval.connect(db) as con:
        pyeval.evaluate(con, "c", ["P@10"], engine="spark", memory="5g", cores=1, store=False)
    assert sessions[-1] == (1, "5g")
    refused = CliRunner().invoke(main, [*evaluate, "--spark-memory", "6g", "--spark-cores", "2"])
    assert refused.exit_code == 1 and "--spark-cores, --spark-memory need --engine spark" in refused.output
    monkeypatch.undo()
    for bad in ("6 GB", "0g", "lots"):
        result = CliRunner().invoke(main, [*evaluate, "--engine", "spark", "--spark-memory", bad])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert f"Spark driver memory {bad!r}: give a JVM size such as 4g or 8192m" in result.output


def test_the_drivers_are_registered_function_objects_the_import_graph_sees():
    from pyeval import drivers, family_drivers

    from .test_architecture import import_graph

    import pyeval.drivers.ndeval  # noqa: F401  (a submodule imported: the registered objects stay)

    assert registry.driver("ndeval") is drivers.compute_ndeval
    assert registry.driver("umeasure") is drivers.compute_umeasure
    assert family_drivers.driven_families() == {d.family for d in registry.definitions()} - set(registry.sql_families())
    assert {"pyeval.drivers.ndeval", "pyeval.drivers.umeasure"} <= import_graph()["pyeval.drivers"]
    with pytest.raises(ValueError, match="has a driver already"):
        family_drivers.register_driver("ndeval", drivers.compute_ndeval)
