"""Opening, creating and upgrading warehouses (pyeval/storage/warehouse.py, migrations/, schema/)."""
from __future__ import annotations

import re
import shutil

import duckdb
import pytest

import pyeval
from pyeval.core import sqlfiles
from pyeval.storage import ownership, public, warehouse
from pyeval.errors import SchemaVersionError

from .conftest import ARCHIVE, FIXTURES, snapshot


def test_new_file_gets_every_migration_and_view(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    recorded = con.execute("select version, name, checksum from schema_migrations order by 1").fetchall()
    files = sqlfiles.migration_files()
    assert [(v, n) for v, n, _ in recorded] == [(v, n) for v, n, _ in files]
    assert all(re.fullmatch("[0-9a-f]{64}", c) for _, _, c in recorded)
    views = {r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()}
    assert set(sqlfiles.VIEW_ORDER) <= views
    assert con.execute("select count(*) from scores").fetchall() == [(0,)]
    con.close()


def test_reopening_an_existing_file_keeps_its_data(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    before = snapshot(con)
    con.close()
    con = pyeval.connect(path)
    assert warehouse.migrate(con) == []  # nothing pending
    assert snapshot(con) == before
    con.close()


def test_upgrade_applies_only_new_migrations(tmp_path):
    path = tmp_path / "w.duckdb"
    files = sqlfiles.migration_files()
    con = pyeval.connect(path, migrations=files)
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    con.close()
    extra = tmp_path / "9999_add_note.sql"
    extra.write_text("alter table campaigns add column note varchar;\n")
    con = pyeval.connect(path, migrations=[*files, (9999, "add_note", extra)])
    assert con.execute("select count(*) from qrels").fetchall() == [(3681,)]
    assert "note" in [r[0] for r in con.execute("describe campaigns").fetchall()]
    assert con.execute("select max(version) from schema_migrations").fetchall() == [(9999,)]
    con.close()


def test_a_failing_migration_is_rolled_back(tmp_path):
    path = tmp_path / "w.duckdb"
    files = sqlfiles.migration_files()
    bad = tmp_path / "9999_broken.sql"
    bad.write_text("create table half_done (x int);\nselect * from no_such_table;\n")
    with pytest.raises(SchemaVersionError, match="9999_broken failed"):
        pyeval.connect(path, migrations=[*files, (9999, "broken", bad)])
    con = duckdb.connect(str(path))
    assert con.execute("select count(*) from duckdb_tables() where table_name = 'half_done'").fetchall() == [(0,)]
    assert con.execute("select max(version) from pyeval_internal.schema_migrations").fetchall() == [(files[-1][0],)]
    con.close()


def test_tampered_migration_is_an_error(tmp_path):
    path = tmp_path / "w.duckdb"
    pyeval.connect(path).close()
    copies = []
    for version, name, source in sqlfiles.migration_files():
        copy = tmp_path / source.name
        shutil.copy(source, copy)
        copies.append((version, name, copy))
    copies[0][2].write_text(copies[0][2].read_text() + "\n-- edited after release\n")
    with pytest.raises(SchemaVersionError, match="was changed after it was applied"):
        pyeval.connect(path, migrations=copies)


def test_unknown_recorded_migration_is_an_error(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    con.execute("insert into schema_migrations (version, name, checksum) values (9998, 'future', 'x')")
    con.close()
    with pytest.raises(SchemaVersionError, match="9998_future"):
        pyeval.connect(path)


def _first_version_warehouse(path):
    """A warehouse as the first schema version made it: migration 0001 only, no views."""
    con = duckdb.connect(str(path))
    con.execute((sqlfiles.resource_root("schema") / "schema_migrations.sql").read_text())
    version, name, first = sqlfiles.migration_files()[0]
    con.execute(first.read_text())
    con.execute(
        "insert into schema_migrations (version, name, checksum) values ($v, $n, $c)",
        {"v": version, "n": name, "c": warehouse.migration_checksum(first)},
    )
    # the rows the loaders of that version stored (its run_entries had no trec_rank, its qrels no
    # judgment_set)
    con.execute("insert into campaigns (campaign_id, qrels_kind, qrels_format) values ('c', 'adhoc', 'trec')")
    con.execute(
        "insert into qrels (campaign_id, topic_id, intent_id, doc_id, level) select 'c', topic, '', doc, level "
        "from read_csv($path, delim = ' ', header = false, "
        "columns = {'topic': 'varchar', 'iter': 'varchar', 'doc': 'varchar', 'level': 'integer'})",
        {"path": str(FIXTURES / "trec_eval" / "qrels.test")},
    )
    con.execute("insert into topics select distinct campaign_id, topic_id from qrels")
    con.execute(
        "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256) "
        "values ('c', 'test', 'test', 'results.test', '')"
    )
    con.execute(
        "insert into run_entries (campaign_id, run_id, topic_id, doc_id, rank_given, score, "
        "file_position) select 'c', 'test', topic, doc, rank, score, row_number() over () "
        "from read_csv($path, delim = '\t', header = false, "
        "columns = {'topic': 'varchar', 'iter': 'varchar', 'doc': 'varchar', 'rank': 'bigint', "
        "'score': 'double', 'tag': 'varchar'})",
        {"path": str(FIXTURES / "trec_eval" / "results.test")},
    )
    con.close()


def test_first_version_warehouse_upgrades_and_keeps_its_data(tmp_path):
    path = tmp_path / "v1.duckdb"
    _first_version_warehouse(path)
    raw = duckdb.connect(str(path))
    before = {t: snapshot(raw)[t] for t in ("qrels", "runs", "run_entries", "campaigns", "topics")}
    raw.close()
    con = pyeval.connect(path)
    after = snapshot(con)
    # trec_rank, the last column, was added by 0004
    after["run_entries"] = sorted((row[:-1] for row in after["run_entries"]), key=repr)
    # system, team and run_date, the last three columns of runs, were added by 0006
    after["runs"] = sorted((row[:-3] for row in after["runs"]), key=repr)
    # default_judgment_set, the last column of campaigns, was added by 0019 (every row: 'official')
    assert {row[-1] for row in after["campaigns"]} == {"official"}
    after["campaigns"] = sorted((row[:-1] for row in after["campaigns"]), key=repr)
    # judgment_set, the last column of qrels, was added by 0011 (every row: 'official'); 0019
    # renamed the table qrels_by_set (qrels is a view of each campaign's default set now)
    assert {row[-1] for row in after["qrels_by_set"]} == {"official"}
    after["qrels"] = sorted((row[:-1] for row in after.pop("qrels_by_set")), key=repr)
    assert con.execute("select count(*) from qrels").fetchall() == [(len(after["qrels"]),)]
    assert {t: after[t] for t in before} == before
    assert con.execute("select count(*) from rank_gains where ordering = 'trec'").fetchall() == [(1500,)]
    # 0004 ranked the stored entries as a load does now
    fresh = pyeval.connect()
    pyeval.load_qrels(fresh, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(fresh, "c", FIXTURES / "trec_eval" / "results.test", name="test")
    ranks = "select topic_id, doc_id, trec_rank from run_entries order by all"
    assert con.execute(ranks).fetchall() == fresh.execute(ranks).fetchall()
    con.close()


def test_read_only_open_upgrades_an_older_file_first(tmp_path):
    path = tmp_path / "w.duckdb"
    _first_version_warehouse(path)
    with pytest.warns(pyeval.PyevalWarning, match="made by an older pyeval; upgrading it"):
        con = pyeval.connect(path, read_only=True)
    assert warehouse.views_current(con)
    assert con.execute("select count(*) from schema_migrations").fetchall() == [(len(sqlfiles.migration_files()),)]
    assert con.execute("select count(*) from qrels").fetchall() == [(3681,)]
    con.close()


def test_read_only_open_needs_an_existing_file(tmp_path):
    with pytest.raises(SchemaVersionError, match="no such warehouse"):
        pyeval.connect(tmp_path / "missing.duckdb", read_only=True)
    path = tmp_path / "w.duckdb"
    pyeval.connect(path).close()
    con = pyeval.connect(path, read_only=True)
    assert con.execute("select count(*) from campaigns").fetchall() == [(0,)]
    con.close()


def test_a_file_that_is_not_duckdb_is_refused(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("not a database\n")
    with pytest.raises(SchemaVersionError):
        pyeval.connect(path)


def _columns_and_constraints(con):
    columns = con.execute(
        "select table_name, column_name, data_type, is_nullable, column_default "
        "from duckdb_columns() where not internal order by all"
    ).fetchall()
    constraints = con.execute(
        "select table_name, constraint_type, constraint_text from duckdb_constraints() order by all"
    ).fetchall()
    return columns, constraints


def test_main_holds_the_public_api_and_pyeval_internal_the_rest(tmp_path):
    """Clients list schema main first: only the public tables and views are there (issue 31);
    the bookkeeping tables and the engine's views are in pyeval_internal, which pyeval's own
    connections find by name and any other client reads qualified."""
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="test")
    pyeval.evaluate(con, "c", ["AP"])
    assert con.execute("select count(*) > 0 from rank_gains").fetchall() == [(True,)]  # found by name
    con.close()
    raw = duckdb.connect(str(path), read_only=True)  # a client: no search path of pyeval's
    listed = {}
    for schema, name in raw.execute(
            "select table_schema, table_name from information_schema.tables "
            "where table_catalog = current_database()").fetchall():
        listed.setdefault(schema, set()).add(name)
    assert listed.pop("main") == set(public.PUBLIC_TABLES) | set(public.PUBLIC_VIEWS)
    assert listed.pop(public.INTERNAL_SCHEMA) == (
        set(public.INTERNAL_TABLES) | {v for v in sqlfiles.VIEW_ORDER if public.internal_view(v)})
    assert listed == {}
    assert raw.execute("select count(*) from scores where measure = 'AP'").fetchall() == [(3,)]  # 3 topics
    assert raw.execute("select count(*) > 0 from pyeval_internal.rank_gains").fetchall() == [(True,)]
    raw.close()


def test_an_older_warehouse_moves_its_internals_out_of_main_and_keeps_its_marker(tmp_path):
    """A warehouse an older pyeval made (migrations 0001-0010, its bookkeeping and engine views in
    main) opened now: migration 0018 moves schema_migrations and derived_objects with their
    rows, the engine's views are remade in pyeval_internal and none is left in main, and the
    moved table carries the warehouse's marker still."""
    path = tmp_path / "v10.duckdb"
    shutil.copy(ARCHIVE / "v10.duckdb", path)
    raw = duckdb.connect(str(path), read_only=True)
    applied = raw.execute("select version, name, checksum, applied_at from schema_migrations order by 1").fetchall()
    assert raw.execute("select count(*) from duckdb_views() where schema_name = 'main' "
                       "and view_name = 'rank_gains'").fetchall() == [(1,)]
    marker = ownership.marker(raw)
    raw.close()
    con = pyeval.connect(path)
    assert con.execute("select version, name, checksum, applied_at from schema_migrations where version <= 10 "
                       "order by 1").fetchall() == applied
    assert con.execute("select max(version) from schema_migrations").fetchall() == [(len(sqlfiles.migration_files()),)]
    assert ownership.marker(con) == marker == ownership.WAREHOUSE_MARKER
    assert warehouse.views_current(con)
    con.close()
    raw = duckdb.connect(str(path), read_only=True)
    in_main = {name for name, in raw.execute("select table_name from information_schema.tables "
                                             "where table_schema = 'main'").fetchall()}
    assert in_main == set(public.PUBLIC_TABLES) | set(public.PUBLIC_VIEWS)
    assert raw.execute("select count(*) from pyeval_internal.derived_objects").fetchall()[0][0] > 0
    raw.close()
    assert ownership.probe_warehouse_file(path) == (ownership.Ownership.PYEVAL, marker)


def test_schema_folder_matches_the_migrations():
    migrated = pyeval.connect()
    from_schema = duckdb.connect()
    for path in sqlfiles.schema_files():
        from_schema.execute(path.read_text())
    tables = lambda con: [c for c in _columns_and_constraints(con)[0]]  # noqa: E731
    migrated_columns = [c for c in tables(migrated) if c[0] not in sqlfiles.VIEW_ORDER]
    assert migrated_columns == tables(from_schema)
    assert _columns_and_constraints(migrated)[1] == _columns_and_constraints(from_schema)[1]
    migrated.close()
    from_schema.close()


def test_every_view_file_is_declared_once():
    files = sorted(p.stem for p in (sqlfiles.resource_root("sql") / "views").glob("*.sql"))
    assert sorted(sqlfiles.VIEW_ORDER) == files
    assert len(set(sqlfiles.VIEW_ORDER)) == len(sqlfiles.VIEW_ORDER)


def test_migration_files_are_numbered_without_gaps():
    versions = [v for v, _, _ in sqlfiles.migration_files()]
    assert versions == list(range(1, len(versions) + 1))


# --- the drop-ins' throw-away warehouse (warehouse.scratch) ---------------------------------


def _relations(con):
    tables = {r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()}
    views = {r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()}
    return tables, views


def test_scratch_holds_the_relations_asked_and_what_their_views_read():
    con = warehouse.scratch(["campaigns", "rank_gains"])
    assert _relations(con) == ({"campaigns", "qrels_by_set", "run_entries"}, {"rank_gains", "ranked_entries"})
    assert con.execute("select count(*) from rank_gains").fetchall() == [(0,)]
    con.close()


def test_scratch_has_no_migration_history():
    con = warehouse.scratch(sqlfiles.VIEW_ORDER)
    tables, views = _relations(con)
    assert "schema_migrations" not in tables
    assert views == set(sqlfiles.VIEW_ORDER)
    con.close()


def test_scratch_tables_are_those_of_a_migrated_warehouse():
    """Made from schema/, they have the columns and constraints the migrations give."""
    scratch = warehouse.scratch(sqlfiles.VIEW_ORDER)
    tables, _ = _relations(scratch)
    migrated = pyeval.connect()
    columns, constraints = _columns_and_constraints(migrated)
    assert _columns_and_constraints(scratch)[0] == [c for c in columns if c[0] in tables | set(sqlfiles.VIEW_ORDER)]
    assert _columns_and_constraints(scratch)[1] == [c for c in constraints if c[0] in tables]
    scratch.close()
    migrated.close()


def test_scratch_refuses_an_unknown_relation():
    with pytest.raises(ValueError, match="no stored table or view named 'nothing'"):
        warehouse.scratch(["nothing"])


def test_the_functions_that_read_the_engine_views_work_on_a_cursor(tmp_path):
    """A cursor is a DuckDB session of its own, searching schema main only: each function that
    reads the views of pyeval_internal sets its search path (pyeval/storage/public.py)."""
    from pyeval import fusion, judgments, pools
    from pyeval.resampling import mem

    con = pyeval.connect(tmp_path / "w.duckdb")
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="a")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.trunc", name="b")
    for function in (
        lambda cursor: pyeval.evaluate(cursor, "c", ["AP", "nDCG@10"], store=False),
        lambda cursor: fusion.fuse(cursor, "c", ["a", "b"], "sum"),
        lambda cursor: pools.build(cursor, "c", "depth10", depth=10),
        lambda cursor: pools.coverage(cursor, "c", "depth10", store=False),
        lambda cursor: judgments.holes(cursor, "c", depth=10),
        lambda cursor: mem.informativeness(cursor, "c", ["ERR"], depth=3, runs_top=2, topics_top=2, store=False),
    ):
        cursor = con.cursor()
        with pytest.raises(duckdb.CatalogException):  # what a cursor sees before: main only
            cursor.execute("select count(*) from ranked_entries")
        function(cursor)
        cursor.close()
    con.close()
