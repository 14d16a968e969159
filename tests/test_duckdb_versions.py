"""pyeval on a DuckDB before 2.0 (pyeval/storage/compat.py, pyeval/core/duckdb_trees.py): what it runs differently there, checked
on any installed DuckDB by switching compat.BEFORE_2 on where the text is the same on every version."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pyeval.errors import PyevalError
from click.testing import CliRunner

from pyeval.cli import main
from pyeval.core import duckdb_trees
from pyeval.storage import compat, resources

#: json_serialize_sql of DuckDB 1.5.6 for
#: with a as (select {'f': x, 'g': 1} as s, 'ab' as z from t) select starts_with(z, 'a') as p, s.f from a
TREE_15 = json.loads(r'''{"error": false, "statements": [{"node": {"type": "SELECT_NODE", "modifiers": [], "cte_map": {"map": [{"key": "a", "value": {"aliases": [], "query": {"node": {"type": "SELECT_NODE", "modifiers": [], "cte_map": {"map": []}, "select_list": [{"class": "FUNCTION", "type": "FUNCTION", "alias": "s", "query_location": 19, "function_name": "struct_pack", "schema": "main", "children": [{"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "f", "query_location": 24, "column_names": ["x"]}, {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "g", "query_location": 32, "value": {"type": {"id": "INTEGER", "type_info": null}, "is_null": false, "value": 1}}], "filter": null, "order_bys": {"type": "ORDER_MODIFIER", "orders": []}, "distinct": false, "is_operator": false, "export_state": false, "catalog": ""}, {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "z", "query_location": 41, "value": {"type": {"id": "VARCHAR", "type_info": null}, "is_null": false, "value": "ab"}}], "from_table": {"type": "BASE_TABLE", "alias": "", "sample": null, "query_location": 56, "schema_name": "", "table_name": "t", "column_name_alias": [], "catalog_name": "", "at_clause": null}, "where_clause": null, "group_expressions": [], "group_sets": [], "aggregate_handling": "STANDARD_HANDLING", "having": null, "sample": null, "qualify": null}, "named_param_map": []}, "materialized": "CTE_MATERIALIZE_DEFAULT", "key_targets": []}}]}, "select_list": [{"class": "FUNCTION", "type": "FUNCTION", "alias": "p", "query_location": 66, "function_name": "starts_with", "schema": "", "children": [{"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "query_location": 78, "column_names": ["z"]}, {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 81, "value": {"type": {"id": "VARCHAR", "type_info": null}, "is_null": false, "value": "a"}}], "filter": null, "order_bys": {"type": "ORDER_MODIFIER", "orders": []}, "distinct": false, "is_operator": false, "export_state": false, "catalog": ""}, {"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "query_location": 92, "column_names": ["s", "f"]}], "from_table": {"type": "BASE_TABLE", "alias": "", "sample": null, "query_location": 101, "schema_name": "", "table_name": "a", "column_name_alias": [], "catalog_name": "", "at_clause": null}, "where_clause": null, "group_expressions": [], "group_sets": [], "aggregate_handling": "STANDARD_HANDLING", "having": null, "sample": null, "qualify": null}, "named_param_map": []}]}''')


def test_a_not_null_column_with_a_default_is_set_not_null_after_the_migration_before_2(monkeypatch, tmp_path):
    monkeypatch.setattr(compat, "BEFORE_2", True)
    migration = ("alter table qrels add column judgment_set varchar not null default 'official';\n"
                 "alter table runs add column team varchar;\n")
    text, later = compat.migration_sql(migration)
    assert text == ("alter table qrels add column judgment_set varchar default 'official';\n"
                    "alter table runs add column team varchar;\n")
    assert later == ["alter table qrels alter column judgment_set set not null"]
    con = duckdb.connect(str(tmp_path / "w.duckdb"))  # a file: 1.x refuses both steps in one transaction there
    con.execute("create table qrels (doc varchar primary key); insert into qrels values ('d1'); create table runs (run varchar)")
    for step in [text, *later]:
        con.execute("begin")
        con.execute(step)
        con.execute("commit")
    assert con.execute("select judgment_set from qrels").fetchall() == [("official",)]
    with pytest.raises(duckdb.ConstraintException):
        con.execute("insert into qrels values ('d2', null)")


def test_a_migration_runs_unchanged_on_duckdb_2(monkeypatch):
    monkeypatch.setattr(compat, "BEFORE_2", False)
    migration = "alter table qrels add column judgment_set varchar not null default 'official';"
    assert compat.migration_sql(migration) == (migration, [])


def test_a_share_of_memory_becomes_a_size_before_2(monkeypatch):
    monkeypatch.setattr(resources, "_machine_memory", lambda: 8 * 1024 ** 3)
    assert resources.duckdb_memory_limit("50%") == "4096MiB"
    assert resources.duckdb_memory_limit("4GB") == "4GB"
    monkeypatch.setattr(resources, "_machine_memory", lambda: None)  # DuckDB 2.0 reads shares
    assert resources.duckdb_memory_limit("50%") == "50%"


def test_the_machine_memory_is_read_from_duckdbs_default_before_2(monkeypatch):
    monkeypatch.setattr(compat, "BEFORE_2", True)
    resources._machine_memory.cache_clear()
    try:
        memory = resources._machine_memory()
    finally:
        resources._machine_memory.cache_clear()
    default = duckdb.connect().execute("select current_setting('memory_limit')").fetchone()[0]
    value, unit = default.split()
    assert memory == pytest.approx(float(value) * 1024 ** resources._BINARY_UNITS[unit] / 0.8, rel=0.01)


def test_a_15_tree_reads_in_the_2_0_shape_and_prints_back(monkeypatch):
    monkeypatch.setattr(duckdb_trees, "BEFORE_2", True)
    tree = duckdb_trees.tree_from_duckdb(TREE_15)
    node = tree["statements"][0]["node"]
    cte = node["cte_map"]["map"][0]["value"]
    struct = cte["query_node"]["select_list"][0]
    assert [a["name"] for a in struct["arguments"]] == ["f", "g"]
    assert cte["query_node"]["select_list"][1]["literal"] == {"kind": "STRING", "text": "ab"}
    prefix = node["select_list"][0]["arguments"][1]["expression"]
    assert prefix["literal"] == {"kind": "STRING", "text": "a"}
    assert duckdb_trees.tree_for_duckdb(tree) == TREE_15
    assert "query_node" in cte  # the trees are new: the compiler's tree is not changed by printing


def test_a_boolean_made_by_the_compiler_prints_on_15(monkeypatch):
    monkeypatch.setattr(duckdb_trees, "BEFORE_2", True)
    constant = {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 0,
                "query_location_length": 0, "literal": {"kind": "BOOLEAN", "text": "false"}}
    assert duckdb_trees.tree_for_duckdb(constant) == {
        "class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 0,
        "value": {"type": {"id": "BOOLEAN", "type_info": None}, "is_null": False, "value": False}}
    cast = {"class": "CAST", "type": "OPERATOR_CAST", "alias": "y", "query_location": 3,
            "child": {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 7,
                      "value": {"type": {"id": "VARCHAR", "type_info": None}, "is_null": False, "value": "t"}},
            "cast_type": {"id": "BOOLEAN", "type_info": None}, "try_cast": False}
    assert duckdb_trees.tree_from_duckdb(cast)["literal"] == {"kind": "BOOLEAN", "text": "true"}
    assert duckdb_trees.tree_from_duckdb(cast)["alias"] == "y"


def test_the_installed_duckdb_prints_its_own_tree_after_the_round_trip():
    con = duckdb.connect()
    text = "with a as (select {'f': x} as s, true as b from t) select s.f from a where b and starts_with('ab', 'a')"
    serialized = con.execute("select json_serialize_sql($q)", {"q": text}).fetchone()[0]
    trip = json.dumps(duckdb_trees.tree_for_duckdb(duckdb_trees.tree_from_duckdb(json.loads(serialized))))
    printed = con.execute("select json_deserialize_sql($t)", {"t": trip}).fetchone()[0]
    assert printed == con.execute("select json_deserialize_sql($t)", {"t": serialized}).fetchone()[0].replace(
        "CAST('t' AS BOOLEAN)", "true")


def test_a_cross_join_before_a_left_join_prints_in_its_place():
    con = duckdb.connect()
    con.execute("create table a (x int); create table b (y int); create table c (x int);"
                "insert into a values (1), (2); insert into b values (5); insert into c values (1)")
    text = "select * from a cross join b left join c on a.x = c.x order by a.x"
    serialized = con.execute("select json_serialize_sql($q)", {"q": text}).fetchone()[0]
    trip = json.dumps(duckdb_trees.tree_for_duckdb(duckdb_trees.tree_from_duckdb(json.loads(serialized))))
    printed = con.execute("select json_deserialize_sql($t)", {"t": trip}).fetchone()[0]
    assert con.execute(printed).fetchall() == [(1, 5, 1), (2, 5, None)]


def test_a_file_records_the_duckdb_that_made_it(tmp_path):
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    assert compat.made_by(str(path)) == duckdb.__version__
    (tmp_path / "text").write_text("not a database")
    assert compat.made_by(str(tmp_path / "text")) is None


def test_a_file_from_a_newer_duckdb_is_refused_with_the_version_that_made_it(tmp_path):
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    refusal = duckdb.IOException("IO Error: Trying to read a database file with version number 69, "
                                 "but we can only read versions between 64 and 68.")
    line = compat.newer_file(str(path), refusal)
    assert line.startswith(f"{path}: made by DuckDB {duckdb.__version__}, which the installed DuckDB")
    assert "(storage version 69; this one reads 64 to 68)" in line and "--duckdb-version" in line
    assert compat.newer_file(str(path), duckdb.IOException("Could not set lock on file")) is None


@pytest.mark.skipif(not compat.BEFORE_2, reason="DuckDB 2.0 reads the fixture")
def test_a_warehouse_from_duckdb_2_is_refused_in_one_line_on_1x(tmp_path):
    path = tmp_path / "v10.duckdb"
    shutil.copy(Path(__file__).parent / "fixtures" / "archive" / "v10.duckdb", path)
    result = CliRunner().invoke(main, ["--db", str(path), "sql", "select 1"])
    assert result.exit_code != 0
    assert f"{path}: made by DuckDB 2.0.1, which the installed DuckDB {duckdb.__version__} cannot read" in result.output


def test_an_ordered_list_and_an_empty_list_read_as_on_2():
    """DuckDB 1.x's parser writes list(x ORDER BY x) as list_sort(list(x), ...) and [] as
    main.list_value(): the compiler (and Spark's transpiler, which knows neither) reads 2.0's
    ordered aggregate and list_value() on every version."""
    con = duckdb.connect()
    con.execute("create table t as select * from (values (2, 'b'), (null, 'a'), (1, 'c')) as v(x, y)")
    text = "select list(x order by x desc nulls last) as l, list(y order by y) as m, coalesce(null, []) as e from t"
    serialized = con.execute("select json_serialize_sql($q)", {"q": text}).fetchone()[0]
    tree = duckdb_trees.tree_from_duckdb(json.loads(serialized))
    listed, by_name, empty = tree["statements"][0]["node"]["select_list"]
    assert empty["children"][1]["schema"] == ""  # [] as 2.0 writes it: list_value(), not main.list_value()
    assert (listed["function_name"], listed["alias"]) == ("list", "l")
    assert [(order["type"], order["null_order"]) for order in listed["order_bys"]["orders"]] == [("DESCENDING", "NULLS LAST")]
    assert [order["type"] for order in by_name["order_bys"]["orders"]] == ["ORDER_DEFAULT"]
    printed = con.execute("select json_deserialize_sql($t)", {"t": json.dumps(duckdb_trees.tree_for_duckdb(tree))}).fetchone()[0]
    assert con.execute(printed).fetchall() == [([2, 1, None], ["a", "b", "c"], [])]


def test_the_spark_engine_reads_what_the_installed_duckdb_prints():
    """Spark translates the SQL DuckDB prints of a compiled family, which DuckDB 1.x prints in
    another form (lambdas as arrows, the functions its parser makes as main."trim" and
    main.struct_pack): the translation reads both forms (tests/engines/test_transpile.py compares
    1.5.6's printing with 2.0.1's, tests/engines/test_spark.py runs it on every version)."""
    pytest.importorskip("sqlglot")
    from pyeval.core import compile
    from pyeval.engines import transpile
    from pyeval.measures.registry import definitions

    kinds = frozenset(d.kind or d.name for d in definitions() if d.family == "average_precision")
    printed = compile.family("average_precision", kinds)
    assert ("(point -> " in printed and '("row"(entry, place) -> ' in printed
            and 'main."trim"(' in printed) == duckdb_trees.BEFORE_2
    assert ("(lambda point: " in printed and "(lambda entry, place: " in printed) == (not duckdb_trees.BEFORE_2)
    spark = " ".join(transpile.to_spark(printed).split())
    assert "point -> " in spark and "(entry, place) -> " in spark and "TRIM(point)" in spark
    assert not any(form in spark for form in ("GET_JSON_OBJECT", "ROW(", "MAIN.", "main."))


def test_a_materialized_cte_reads_as_a_cte_of_its_query():
    con = duckdb.connect()
    text = "with a as materialized (select 1 as x), b as (select x from a) select * from b union all select 2"
    serialized = con.execute("select json_serialize_sql($q)", {"q": text}).fetchone()[0]
    tree = duckdb_trees.tree_from_duckdb(json.loads(serialized))
    node = tree["statements"][0]["node"]
    assert node["type"] == "SET_OPERATION_NODE"  # DuckDB 1.4: a CTE_NODE around it
    assert [entry["key"] for entry in node["cte_map"]["map"]] == ["a", "b"]
    printed = con.execute("select json_deserialize_sql($t)", {"t": json.dumps(duckdb_trees.tree_for_duckdb(tree))}).fetchone()[0]
    as_parsed = con.execute("select json_deserialize_sql($t)", {"t": serialized}).fetchone()[0]
    assert ("MATERIALIZED" in printed) == ("MATERIALIZED" in as_parsed)  # DuckDB 1.5's parser drops it
    assert sorted(con.execute(printed).fetchall()) == [(1,), (2,)]


@pytest.mark.parametrize("before_2", [True, False])
def test_an_attached_file_with_quotes_in_its_name_is_that_file(monkeypatch, tmp_path, before_2):
    monkeypatch.setattr(compat, "BEFORE_2", before_2)
    path = str(tmp_path / "it's'; detach memory; --.duckdb")
    target, parameters = compat.attached_file(path)
    assert (target, parameters) == ((compat.string_literal(path), {}) if before_2 else ("$path", {"path": path}))
    con = duckdb.connect()
    if before_2 or not duckdb_trees.BEFORE_2:  # the installed DuckDB before 2.0 binds no attach parameter
        con.execute(f"attach {target} as copy (read_write)", parameters)
        assert con.execute("select path from duckdb_databases() where database_name = 'copy'").fetchall() == [(path,)]
    with pytest.raises(PyevalError, match="NUL"):
        compat.string_literal("a\x00b")


def test_a_load_drops_the_temporary_table_it_renamed():
    from pyeval.loaders.staging import TemporaryRelations

    con = duckdb.connect()
    con.execute("create table kept (x int)")
    with TemporaryRelations(con) as relations:
        relations.track("staged_files", "staged_run_files", "kept")
        con.execute("create temp table staged_files (x int); alter table staged_files rename to staged_run_files")
    assert con.execute("select table_name from duckdb_tables() order by 1").fetchall() == [("kept",)]


def test_a_warehouse_records_the_duckdb_and_storage_version_it_was_written_with(tmp_path):
    path = tmp_path / "w.duckdb"
    import pyeval

    pyeval.connect(path).close()
    assert compat.made_by(str(path)) == duckdb.__version__
    result = CliRunner().invoke(main, ["--db", str(path), "sql", "--format", "csv",
                                       "select tags['storage_version'] as storage_version from duckdb_databases() "
                                       "where database_name = current_database()"])
    assert result.exit_code == 0, result.output
    # DuckDB 1.x writes a new file in the format DuckDB 1.0 and later read, 2.0 in its own
    assert result.output.splitlines()[1] == ("v1.0.0+" if compat.BEFORE_2 else "v2.0.0+")


def test_a_not_in_reads_as_not_of_an_in_and_prints_back(monkeypatch):
    monkeypatch.setattr(duckdb_trees, "BEFORE_2", True)
    kind = {"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "query_location": 7, "column_names": ["kind"]}
    gap = {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 20,
           "value": {"type": {"id": "VARCHAR", "type_info": None}, "is_null": False, "value": "GAP"}}
    not_in_15 = {"class": "OPERATOR", "type": "COMPARE_NOT_IN", "alias": "a", "query_location": 12, "children": [kind, gap]}
    tree = duckdb_trees.tree_from_duckdb(not_in_15)
    assert (tree["type"], tree["alias"]) == ("OPERATOR_NOT", "a")  # DuckDB 2.0's shape, which compile.py decides
    assert [child["type"] for child in tree["children"]] == ["COMPARE_IN"]
    assert tree["children"][0]["children"][1]["literal"] == {"kind": "STRING", "text": "GAP"}
    assert duckdb_trees.tree_for_duckdb(tree) == not_in_15


def test_the_installed_duckdb_keeps_a_not_in_through_the_round_trip():
    con = duckdb.connect()
    con.execute("create table t (kind varchar); insert into t values ('GAP'), ('nGAP'), ('AP')")
    text = "select kind from t where kind not in ('GAP', 'nGAP')"
    serialized = con.execute("select json_serialize_sql($q)", {"q": text}).fetchone()[0]
    trip = json.dumps(duckdb_trees.tree_for_duckdb(duckdb_trees.tree_from_duckdb(json.loads(serialized))))
    printed = con.execute("select json_deserialize_sql($t)", {"t": trip}).fetchone()[0]
    assert con.execute(printed).fetchall() == [("AP",)]
