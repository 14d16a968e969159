"""Reading a qrels file and a run for one evaluation that stores nothing (pyeval/loaders/transient.py):
the rows the loaders store, or nothing when the loaders would refuse or warn."""
from __future__ import annotations

import pytest

from pyeval.compat import trec_eval
from pyeval.core import stages
from pyeval.core.plan import plan, warehouse_reads
from pyeval.core.request import EvaluationRequest
from pyeval.loaders import load_qrels, load_run, transient
from pyeval.measures import parse
from pyeval.storage import warehouse

from ..conftest import FIXTURES

TREC = FIXTURES / "trec_eval"
QRELS = "select campaign_id, judgment_set, topic_id, intent_id, doc_id, level from qrels_by_set order by all"
ENTRIES = ("select campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank "
           "from run_entries order by all")


def _stored(con) -> tuple[list, list]:
    return con.execute(QRELS).fetchall(), con.execute(ENTRIES).fetchall()


@pytest.mark.parametrize("qrels,run", [("qrels.test", "results.test"), ("qrels.rel_level", "results.test")])
def test_the_rows_the_loaders_store(qrels, run):
    """results.test pads its scores with spaces in TAB-separated fields (the fast path's spaced layout)."""
    loaded = warehouse.scratch(warehouse.LOADED_TABLES)
    load_qrels(loaded, "c", TREC / qrels, format="trec")
    load_run(loaded, "c", TREC / run, name="r")
    staged = warehouse.scratch(transient.TABLES)
    assert transient.stage_pair(staged, "c", TREC / qrels, TREC / run, "r")
    assert _stored(staged) == _stored(loaded)
    assert len(_stored(staged)[1]) > 500


@pytest.mark.parametrize("qrels,run", [
    ("1 0 a 1\n1 0 b x\n", "1 Q0 a 1 2.0 t\n"),  # a level that is not an integer
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 2.0 t\n"),  # a judgment given twice
    ("# judged by\n1 0 a 1\n", "1 Q0 a 1 2.0 t\n"),  # a comment: the general path reads it
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n"),  # a document retrieved twice
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 u\n"),  # two run tags: load_run warns
    ("1 0 a 1\n", "1 Q0 a 1 inf t\n"),  # a score that is no finite number
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t\n\n1 Q0 b 2 1.0 t\n"),  # a blank line
    ("1 0 a 1\n", ""),  # a run that retrieved nothing
    ("1 0 a 1\n", "1 Q0 a 1 2.0 t extra\n"),  # more than 6 fields: the general path reads it
])
def test_nothing_is_stored_when_the_loaders_would_say_something(tmp_path, qrels, run):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    con = warehouse.scratch(transient.TABLES)
    assert not transient.stage_pair(con, "c", tmp_path / "q", tmp_path / "r", "r")
    assert _stored(con) == ([], [])


def _evaluated(con, request, defined=None) -> list[tuple]:
    stages.compute_into(con, request, defined)
    return con.execute(f"select run_id, topic_id, measure, value from {stages.VALUES_TABLE} order by all").fetchall()


def test_a_run_left_staged_is_read_as_the_loaders_would_store_it():
    """store_run=False: nothing in run_entries; run_relations, defined by each pass statement,
    gives the evaluation the values of the stored run, bit for bit."""
    request = EvaluationRequest("c", tuple(parse(name) for name in ("AP", "P@10", "Rprec", "NumRet", "bpref")),
                                runs=("r",), topics="intersection")
    stored = warehouse.scratch({*transient.TABLES, *warehouse.ADHOC_EVALUATION})
    assert transient.stage_pair(stored, "c", TREC / "qrels.test", TREC / "results.test", "r")
    staged = warehouse.scratch({*transient.TABLES, *warehouse.ADHOC_EVALUATION} - {"run_entries", "ranked_entries"})
    assert transient.stage_pair(staged, "c", TREC / "qrels.test", TREC / "results.test", "r", store_run=False)
    relations = transient.run_relations("c")
    assert list(relations.selects) == ["run_entries", "ranked_entries"]
    assert not staged.execute("select count(*) from duckdb_tables() where table_name = 'run_entries'").fetchone()[0]
    values = _evaluated(staged, request, relations)
    assert values == _evaluated(stored, request) and len(values) == 15


def test_a_statement_defines_relations_only_where_every_pass_is_one_statement():
    """A Python family driver reads staged tables, not a statement's relations: the executor
    refuses relations for its plan, and pyeval trec_eval stores the run for it."""
    driven = plan(EvaluationRequest("c", (parse("U"),), runs=("r",)))
    assert not stages.statements_only(driven)
    with pytest.raises(ValueError, match="every pass is one statement"):
        stages.DuckDBExecutor(None, driven, transient.run_relations("c"))
    assert trec_eval._run_defined(driven, set()) is None
    sql_only = plan(EvaluationRequest("c", (parse("AP"),), runs=("r",)))
    assert stages.statements_only(sql_only)
    assert trec_eval._run_defined(sql_only, warehouse_reads(sql_only)) is not None
    # a relation the plan reads that is built on the defined ones: the run is stored
    assert trec_eval._run_defined(sql_only, warehouse_reads(sql_only) | {"run_overview"}) is None


def test_a_defined_relation_and_a_stage_bind_a_parameter_to_one_value():
    (current,) = plan(EvaluationRequest("c", (parse("AP"),), runs=("r",))).passes
    sql, parameters = stages.pass_statement(current, transient.run_relations("c"))
    assert sql.startswith("with run_entries as (") and parameters["first_file"] == 0
    with pytest.raises(ValueError, match=r"parameter \$campaign_id is bound to two values"):
        stages.pass_statement(current, transient.run_relations("another"))
