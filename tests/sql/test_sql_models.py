"""Every file of sql/ declares what it reads, produces and takes (pyeval/core/sqlfiles.py), and the
declarations are true: a relation read but not declared (or declared but not read), a
parameter used but not declared, a promised column missing from the result or a grain that is
not a key fails here. The reads are found by DuckDB's own parser (json_serialize_sql), or, for
the statements it does not serialise (insert, update), by a tokenizer."""
from __future__ import annotations

from pyeval.core.request import EvaluationRequest

import json
import re

import duckdb
import pandas as pd
import pytest

import pyeval
from pyeval.core import sqlfiles
from pyeval.core import stages
from pyeval.core.duckdb_trees import tree_from_duckdb
from pyeval.core.plan import NUGGET_STAGING
from pyeval.storage import warehouse
from pyeval.diversity import GLOBAL_STAGING, PER_INTENT_STAGING, SEPARATOR

from .helpers import store_answers
from .test_diversity_seeds import diversity_campaign

FILES = sqlfiles.model_files()
_COMMENT = re.compile(r"--[^\n]*")
_STRING = re.compile(r"'(?:[^']|'')*'")
_PARSER = duckdb.connect()


def _body(path: str) -> str:
    return _COMMENT.sub("", sqlfiles.read(path))


def _walk(node, tables: set, ctes: set) -> None:
    if isinstance(node, dict):
        if node.get("type") == "BASE_TABLE":
            tables.add(node["table_name"])
        for entry in (node.get("cte_map") or {}).get("map", []):
            ctes.add(entry["key"])
        for value in node.values():
            _walk(value, tables, ctes)
    elif isinstance(node, list):
        for value in node:
            _walk(value, tables, ctes)


def _serialised(path: str) -> dict | None:
    tree = json.loads(_PARSER.execute("select json_serialize_sql($q)", {"q": _body(path)}).fetchone()[0])
    return None if tree.get("error") else tree_from_duckdb(tree)  # DuckDB 1.x's trees in 2.0's shape


_TABLE_AFTER = re.compile(r"\b(?:from|join|update|into)\s+([a-z_][a-z0-9_]*)\b(?!\s*\()", re.IGNORECASE)
_CTE = re.compile(r"\b([a-z_][a-z0-9_]*)\s+as\s*(?:not\s+)?(?:materialized\s*)?\(", re.IGNORECASE)


def parsed_reads(path: str) -> set[str]:
    """The relations the SQL of ``path`` reads (CTEs excluded); an insert's or update's target
    counts only when a ``from`` reads it too."""
    tree = _serialised(path)
    if tree is not None:
        tables: set[str] = set()
        ctes: set[str] = set()
        _walk(tree, tables, ctes)
        return tables - ctes
    body = _STRING.sub("''", _body(path))
    target = re.search(r"^\s*(?:insert\s+into|update)\s+(\w+)", body, re.IGNORECASE)
    rest = body[target.end():] if target else body
    return set(_TABLE_AFTER.findall(rest)) - set(_CTE.findall(body))


def parsed_columns(path: str) -> list[str] | None:
    """The output columns of a select, when its select list names them all (no star)."""
    tree = _serialised(path)
    if tree is None:
        return None
    node = tree["statements"][0]["node"]
    while node.get("type") == "SET_OPERATION_NODE":
        node = node["left"] or node["children"][0]
    columns = []
    for expression in node.get("select_list", []):
        if expression.get("alias"):
            columns.append(expression["alias"])
        elif expression.get("class") == "COLUMN_REF":
            columns.append(expression["column_names"][-1])
        else:
            return None
    return columns


@pytest.mark.parametrize("path", FILES)
def test_the_header_declares_every_relation_read_and_no_other(path):
    assert set(sqlfiles.model(path).reads) == parsed_reads(path)


@pytest.mark.parametrize("path", FILES)
def test_the_header_declares_every_parameter_and_no_other(path):
    used = set(re.findall(r"\$(\w+)", _STRING.sub("''", _body(path))))
    assert set(sqlfiles.model(path).params) == used


@pytest.mark.parametrize("path", FILES)
def test_the_promised_columns_are_the_select_list(path):
    model = sqlfiles.model(path)
    columns = parsed_columns(path)
    if model.produces is None:
        assert model.writes or model.defines
        return
    if columns is not None:
        assert list(model.columns) == columns
    if model.key is not None:
        assert set(model.key) <= set(model.columns), "the grain names columns the file does not produce"


def test_producers_of_one_relation_promise_the_same_columns():
    """evaluation_ranks, evaluation_levels, ... are made by the ad hoc, global and per-intent
    stagings alike: every family reads them the same way."""
    producers: dict[str, set] = {}
    for path in FILES:
        model = sqlfiles.model(path)
        if model.produces is not None:
            producers.setdefault(model.produces, set()).add((model.columns, model.key))
    assert {name: found for name, found in producers.items() if len(found) > 1} == {}


def test_view_order_puts_each_view_after_the_views_it_reads():
    order = list(sqlfiles.VIEW_ORDER)
    for position, view in enumerate(order):
        read = sqlfiles.model(f"views/{view}.sql").reads
        assert not set(read) & set(order[position:]), view


def test_a_header_that_lies_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlfiles, "resource_root", lambda tree: tmp_path)
    (tmp_path / "views").mkdir()
    (tmp_path / "views" / "lying.sql").write_text("-- reads: qrels\nselect 1 as a\n")
    sqlfiles.model.cache_clear()
    sqlfiles.read.cache_clear()
    try:
        with pytest.raises(ValueError, match="params"):
            sqlfiles.model("views/lying.sql")
    finally:
        sqlfiles.model.cache_clear()
        sqlfiles.read.cache_clear()


# ------------------------------------------------------------------- the results themselves


def _relation_columns(con, name: str) -> list[str]:
    return [row[0] for row in con.execute(f"describe {name}").fetchall()]  # names are pyeval's


def _assert_key(con, model: sqlfiles.Model) -> None:
    if model.key is None:
        return
    key = ", ".join(model.key)
    duplicates = con.execute(
        f"select count(*) from (select {key} from {model.produces} group by {key} having count(*) > 1)"
    ).fetchone()[0]
    assert duplicates == 0, f"{model.path}: grain ({key}) is not a key"


@pytest.fixture(scope="module")
def adhoc():
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", pd.DataFrame(
        [("1", "a", 2), ("1", "b", 0), ("1", "c", 1), ("1", "d", -1), ("2", "a", 1), ("2", "e", 3)],
        columns=["query_id", "doc_id", "relevance"]))
    pyeval.load_run(con, "c", pd.DataFrame(
        [("1", d, 10.0 - r) for r, d in enumerate("abxcd")] + [("2", d, 5.0 - r) for r, d in enumerate("eyza")],
        columns=["query_id", "doc_id", "score"]), name="r")
    store_answers(con, "c", "r", ["1", "2"])
    yield con
    con.close()


@pytest.fixture(scope="module")
def diverse():
    con = diversity_campaign(
        {"1": {"i1": {"a": 1, "b": 0}, "i2": {"b": 2, "c": 1}}, "2": {"i1": {"d": 1}}},
        {"1": {"i1": (0.6, "inf"), "i2": (0.4, "nav")}, "2": {"i1": (1.0, "inf")}},
        {"r": {"1": ["a", "x", "b", "c"], "2": ["d", "y"]}},
    )
    yield con
    con.close()


def test_every_view_has_the_promised_columns_and_grain(adhoc):
    for view in sqlfiles.VIEW_ORDER:
        model = sqlfiles.model(f"views/{view}.sql")
        assert _relation_columns(adhoc, view) == list(model.columns), view
        _assert_key(adhoc, model)


def test_the_views_of_an_in_memory_warehouse_are_every_view():
    con = warehouse.scratch(sqlfiles.VIEW_ORDER)
    try:
        assert {view: _relation_columns(con, view) for view in sqlfiles.VIEW_ORDER} == {
            view: list(sqlfiles.model(f"views/{view}.sql").columns) for view in sqlfiles.VIEW_ORDER}
    finally:
        con.close()


def _settings(campaign: str, **extra) -> dict:
    settings = EvaluationRequest(campaign, (), runs=tuple(["r"]), ordering="trec", max_depth=3, judged_only=False,
                                     topics="qrels").stage_parameters()
    return {**settings, "profiles": ["linear", "exp"], **extra}


def _check_staging(con, files, settings) -> None:
    tables = stages.run_stages(con, files, settings)
    try:
        for file in files:
            model = sqlfiles.model(f"evaluation/{file}.sql")
            assert _relation_columns(con, model.produces) == list(model.columns), file
            _assert_key(con, model)
    finally:
        stages.drop_tables(con, tables)


@pytest.mark.parametrize("judged_only", [False, True])
def test_the_adhoc_stages_have_the_promised_columns_and_grain(adhoc, judged_only):
    _check_staging(adhoc, stages.ADHOC_STAGING, _settings("c", judged_only=judged_only))


@pytest.mark.parametrize("topic_policy", ["qrels", "intersection"])
def test_the_stages_of_generated_answers_have_the_promised_columns_and_grain(adhoc, topic_policy):
    _check_staging(adhoc, NUGGET_STAGING, _settings("c", topic_policy=topic_policy))


@pytest.mark.parametrize("staging, extra", [
    (GLOBAL_STAGING, {"probs": "given", "profile": "linear", "din": False, "profiles": ["linear"]}),
    (GLOBAL_STAGING, {"probs": "given", "profile": "linear", "din": True, "profiles": ["linear"]}),
    (PER_INTENT_STAGING, {"separator": SEPARATOR}),
])
def test_the_diversity_stages_have_the_promised_columns_and_grain(diverse, staging, extra):
    _check_staging(diverse, staging, _settings("t", **extra))


@pytest.mark.parametrize("family", sorted(set(pyeval.measures.registry.sql_families()) - {"preferences"}))
def test_every_metric_family_gives_the_promised_columns(adhoc, family):
    from pyeval.measures import definitions, make

    measures = [make(d, **{p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
                           for p in d.params if p.required})
                for d in definitions() if d.family == family]
    tables = stages.run_stages(adhoc, stages.ADHOC_STAGING + NUGGET_STAGING, _settings("c"))
    adhoc.register("requested_measures", stages.requested_frame(family, measures))
    try:
        model = sqlfiles.model(f"metrics/metric_{family}.sql")
        columns = [row[0] for row in adhoc.execute(f"describe {sqlfiles.read(model.path)}").fetchall()]
        assert columns == list(model.columns)
        result = adhoc.execute(sqlfiles.read(model.path)).df()
        assert not result.duplicated(list(model.key)).any()
    finally:
        adhoc.unregister("requested_measures")
        stages.drop_tables(adhoc, tables)
