"""BI access: SQLAlchemy reflection of a warehouse file (duckdb-sqlalchemy dialect)."""
from __future__ import annotations

import pandas as pd
import sqlalchemy as sa

import pyeval
from pyeval.core import sqlfiles
from pyeval.storage.public import INTERNAL_SCHEMA, PUBLIC_VIEWS

from .conftest import FIXTURES

PUBLIC_TABLES = {
    "campaigns", "topics", "intents_by_set", "qrels_by_set", "runs", "run_entries", "document_lengths",
    "campaign_inputs", "evaluations", "topic_scores",
}


def test_reflection_of_tables_views_and_columns(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "t", FIXTURES / "trec_eval" / "results.test")
    con.close()
    engine = sa.create_engine(f"duckdb:///{path}", connect_args={"read_only": True})
    inspector = sa.inspect(engine)
    assert PUBLIC_TABLES <= set(inspector.get_table_names())
    assert set(inspector.get_view_names()) == set(PUBLIC_VIEWS)  # main: the public API only
    assert set(inspector.get_view_names(schema=INTERNAL_SCHEMA)) == set(sqlfiles.VIEW_ORDER) - set(PUBLIC_VIEWS)
    assert [c["name"] for c in inspector.get_columns("scores")] == [
        "campaign_id", "run_id", "topic_id", "measure", "value", "evaluation_id", "evaluated_at", "judgment_set",
        "aggregate", "higher_is_better",
    ]
    qrels_columns = {c["name"]: c for c in inspector.get_columns("qrels")}
    assert isinstance(qrels_columns["level"]["type"], sa.Integer)
    assert inspector.get_pk_constraint("intents_by_set")["constrained_columns"] == [
        "campaign_id", "judgment_set", "topic_id", "intent_id"
    ]
    with engine.connect() as connection:
        overview = pd.read_sql("select * from campaign_overview", connection)
        entries = connection.execute(sa.text("select count(*) from run_entries where run_id = :r"), {"r": "STANDARD"})
        assert entries.scalar() == 1500
    assert overview.loc[0, "judgments"] == 3681
    engine.dispose()
