"""The SQL compiler: the statement an engine runs, generated from the SQL of sql/ for one request.

A metric family's file (sql/metrics/metric_<family>.sql) computes every kind of its family: a
``case kind when ...`` per quantity, common table expressions that only some kinds read. Handed
to DuckDB as it is, every part is bound, optimised and executed for every request (issue 39:
three measures ran a 1,257-line statement, 8x a hand-written one). The compiler keeps the one
definition and deletes what the request does not read:

1. **Fold the kinds** (:func:`family`): every comparison of the requested measures' ``kind``
   column with constants (``kind = 'P'``, ``kind in (...)``, the ``case kind when`` branches) is
   decided for the request's kinds of that family (``requested_measures`` holds no other kind),
   and the ``case`` branches, ``and``/``or``/``not`` decided by it fold away.
2. **Remove dead code** (:func:`prune`), until nothing changes: a select item of a common
   table expression or a subquery in ``from`` that no reader reads (the columns each query
   reads of each relation of its ``from``, followed from the output down: :class:`_Liveness`),
   a common table expression nothing reads, a left join that gives its query no column and at
   most one row per row (its condition equates a key of the joined relation), a struct field no
   name reads. An item is kept whenever removing it could change the rows: ``unnest`` and other
   row-producing calls, ``error()``, aggregates of a query without ``group by``, items of
   ``distinct`` queries, ``union`` branches, ``group by``/``order by`` by position or ``all``.

Both work on DuckDB's own syntax tree (``json_serialize_sql``) and print it back with
``json_deserialize_sql``: the statement is DuckDB's rendering of the same expressions, never a
formula written here. :func:`reads` gives the relations a compiled statement still reads, so the
plan stages only those. Values are pinned by tests/core/test_compile.py and, for every measure of
the registry alone and with its family, by tests/measures/test_interop.py.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb

from pyeval.core import duckdb_trees, sqlfiles
from pyeval.errors import MeasureParamError

#: Calls that make rows (an item holding one is never removed)
_ROW_MAKERS = frozenset({"unnest", "generate_series", "range", "generate_subscripts"})
#: Calls whose effect is not a value (kept: a family's error('metric_<family>: ...'))
_EFFECTS = frozenset({"error", "random", "setseed", "nextval"})
#: Aggregate functions (an item holding one is kept in a query without ``group by``: removing
#: the last would turn one row into one per input row)
_AGGREGATES = frozenset({
    "sum", "count", "count_star", "avg", "mean", "min", "max", "list", "array_agg", "any_value", "first",
    "last", "arg_max", "arg_min", "argmax", "argmin", "max_by", "min_by", "bool_and", "bool_or", "string_agg",
    "group_concat", "fsum", "favg", "sumkahan", "kahan_sum", "product", "quantile", "quantile_cont",
    "quantile_disc", "median", "mode", "histogram", "stddev", "stddev_samp", "stddev_pop", "var_samp",
    "var_pop", "variance", "corr", "covar_pop", "covar_samp", "entropy", "approx_count_distinct",
    "bit_and", "bit_or", "bit_xor", "list_agg", "bitstring_agg", "geomean", "geometric_mean",
})

_local = threading.local()


def _parser() -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB connection per thread: the parser and printer (no data)."""
    con = getattr(_local, "con", None)
    if con is None:
        con = _local.con = duckdb.connect()
    return con


def parse(text: str) -> dict:
    """The syntax tree of ``text`` (one select statement) as DuckDB's parser gives it."""
    (serialized,) = _parser().execute("select json_serialize_sql($text)", {"text": text}).fetchone()
    tree = json.loads(serialized)
    if tree.get("error") or len(tree["statements"]) != 1:
        raise ValueError(f"not one select statement: {tree.get('error_message', text[:80])}")
    return duckdb_trees.tree_from_duckdb(tree)


def render(tree: dict) -> str:
    """The SQL text of ``tree`` (:func:`parse`), printed by DuckDB."""
    printable = duckdb_trees.tree_for_duckdb(tree)
    (text,) = _parser().execute("select json_deserialize_sql($tree)", {"tree": json.dumps(printable)}).fetchone()
    return text


def _constant(value: bool) -> dict:
    return {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 18446744073709551615,
            "query_location_length": 0, "literal": {"kind": "BOOLEAN", "text": "true" if value else "false"}}


def _truth(node: object) -> bool | None:
    """The value of a boolean constant node, else None."""
    if isinstance(node, dict) and node.get("class") == "CONSTANT":
        literal = node.get("literal") or {}
        if literal.get("kind") == "BOOLEAN":
            return literal.get("text") == "true"
    return None


def _is_kind(node: dict) -> bool:
    return node.get("class") == "COLUMN_REF" and node["column_names"][-1].lower() == "kind"


def _text(node: dict) -> str | None:
    if node.get("class") == "CONSTANT" and (node.get("literal") or {}).get("kind") == "STRING":
        return node["literal"]["text"]
    return None


def _kind_test(node: dict) -> tuple[str, list[str]] | None:
    """A comparison of ``kind`` with constants, as ``(test, constants)``: ``=``, ``<>``, ``in``
    or ``prefix`` (``starts_with(kind, 'X')``); None for any other node."""
    kind_type = node.get("type")
    if node.get("class") == "COMPARISON" and kind_type in ("COMPARE_EQUAL", "COMPARE_NOTEQUAL"):
        left, right = node["left"], node["right"]
        if _is_kind(right):
            left, right = right, left
        if _is_kind(left) and _text(right) is not None:
            return ("=" if kind_type == "COMPARE_EQUAL" else "<>"), [_text(right)]
    elif node.get("class") == "FUNCTION" and node.get("function_name", "").lower() in ("starts_with", "prefix"):
        column, prefix = (argument.get("expression", argument) for argument in node["arguments"])
        if _is_kind(column) and _text(prefix) is not None:
            return "prefix", [_text(prefix)]
    elif node.get("class") == "OPERATOR" and kind_type == "COMPARE_IN" and _is_kind(node["children"][0]):
        texts = [_text(value) for value in node["children"][1:]]
        if None not in texts:
            return "in", texts
    return None


def _decide(node: dict, kinds: frozenset[str]) -> bool | None:
    """Whether a comparison of ``kind`` with constants holds for every row of a family whose
    requested kinds are ``kinds`` (True), for none (False), or depends on the row (None)."""
    found = _kind_test(node)
    if found is None:
        return None
    test, constants = found
    if test == "prefix":
        holding = {kind for kind in kinds if kind.startswith(constants[0])}
    else:
        holding = kinds & set(constants)
    decided = True if holding == kinds else (False if not holding else None)
    return (not decided) if test == "<>" and decided is not None else decided


def _fold(node: object, kinds: frozenset[str]) -> object:
    """``node`` with its kind comparisons decided and the ``case``, ``and``, ``or``, ``not``
    they decide folded (bottom-up; a new node where something folded)."""
    if isinstance(node, list):
        return [_fold(item, kinds) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _fold(value, kinds) for key, value in node.items()}
    decided = _decide(node, kinds)
    if decided is not None:
        return {**_constant(decided), "alias": node.get("alias", "")}
    kind_type = node.get("type")
    if kind_type == "OPERATOR_NOT":
        value = _truth(node["children"][0])
        if value is not None:
            return {**_constant(not value), "alias": node.get("alias", "")}
    if kind_type in ("CONJUNCTION_AND", "CONJUNCTION_OR"):
        absorbing = kind_type == "CONJUNCTION_OR"  # true absorbs an or, false an and
        children = []
        for child in node["children"]:
            value = _truth(child)
            if value is absorbing:
                return {**_constant(absorbing), "alias": node.get("alias", "")}
            if value is None:
                children.append(child)
        if not children:
            return {**_constant(not absorbing), "alias": node.get("alias", "")}
        if len(children) == 1:
            return {**children[0], "alias": node.get("alias", "")}
        return {**node, "children": children}
    if kind_type == "CASE_EXPR":
        checks = [check for check in node["case_checks"] if _truth(check["when_expr"]) is not False]
        if not checks:
            return {**node["else_expr"], "alias": node.get("alias", "")}
        if _truth(checks[0]["when_expr"]) is True:
            return {**checks[0]["then_expr"], "alias": node.get("alias", "")}
        return {**node, "case_checks": checks}
    return node


# ---- dead code -----------------------------------------------------------------------------

ALL = None  # the demand of a query whose every column is read


def _walk(node: object) -> Iterator[dict]:
    """Every dict of ``node``'s tree, ``node`` first."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def _calls(node: object) -> set[str]:
    """The functions called in ``node``, outside window expressions."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if current.get("class") == "WINDOW":
                continue  # sum(...) over (...) is not an aggregate of the query
            if current.get("class") == "FUNCTION":
                found.add(current["function_name"].lower())
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return found


def _item_name(item: dict) -> str | None:
    if item.get("alias"):
        return item["alias"].lower()
    if item.get("class") == "COLUMN_REF":
        return item["column_names"][-1].lower()
    return None


def _whole(node: dict) -> bool:
    """Whether every item of select ``node`` must stay: ``distinct``, ``group by``/``order
    by`` by position or ``all``, ``group by all``."""
    expressions = list(node.get("group_expressions") or [])
    for modifier in node.get("modifiers") or []:
        if modifier.get("type") == "DISTINCT_MODIFIER":
            return True
        expressions += [order["expression"] for order in modifier.get("orders") or []]
    positional = any(e.get("class") == "STAR" or (e.get("class") == "CONSTANT" and (e.get("literal") or {}).get("kind")
                                                  == "INTEGER") for e in expressions)
    return positional or node.get("aggregate_handling") not in (None, "STANDARD_HANDLING")


def _removable(item: dict, grouped: bool) -> bool:
    """Whether dropping ``item`` from its query can change nothing but its own column."""
    if item.get("class") == "STAR" or _item_name(item) is None:
        return False
    calls = _calls(item)
    if calls & (_ROW_MAKERS | _EFFECTS):
        return False
    return grouped or not calls & _AGGREGATES


class _Liveness:
    """Which columns of each query of a statement are read (its *demand*), found from the
    output down: a query's kept items, conditions, groups and orders read columns of the
    relations of its ``from`` (a qualified reference its relation, an unqualified one each
    of them, ``*`` the query's own demand), and a common table expression or subquery in
    ``from`` is demanded what its readers read of it."""

    def __init__(self, root: dict, outputs: Iterable[str] | None):
        self.demand: dict[int, set[str] | None] = {}
        self.nodes: dict[int, dict] = {}
        self.scopes: dict[int, dict[str, dict]] = {}  # a query's visible common table expressions
        self.outer: dict[int, list] = {}  # an expression subquery's enclosing relations
        self.pending: list[int] = []
        self.removable: dict[tuple[int, bool], bool] = {}
        self._scope(root, {})
        self._need(root, ALL if outputs is None else {name.lower() for name in outputs})
        while self.pending:
            self._visit(self.nodes[self.pending.pop()])

    def _scope(self, node: object, visible: dict[str, dict]) -> None:
        """Record, for every query node under ``node``, the common table expressions it sees."""
        if isinstance(node, list):
            for item in node:
                self._scope(item, visible)
            return
        if not isinstance(node, dict):
            return
        if node.get("type") in ("SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE"):
            entries = (node.get("cte_map") or {}).get("map", [])
            if entries:
                visible = {**visible, **{e["key"].lower(): e["value"]["query_node"] for e in entries}}
            self.scopes[id(node)] = visible
            self.nodes[id(node)] = node
        for value in node.values():
            self._scope(value, visible)

    def _need(self, node: dict, names: set[str] | None) -> None:
        key = id(node)
        if node.get("type") != "SELECT_NODE" or (node.get("type") == "SELECT_NODE" and _whole(node)):
            names = ALL
        if key in self.demand:
            known = self.demand[key]
            if known is ALL or (names is not ALL and names <= known):
                return
            names = ALL if names is ALL else known | names
        self.demand[key] = names
        self.pending.append(key)

    def kept(self, node: dict) -> list[dict]:
        demand = self.demand.get(id(node), set())
        if demand is ALL:
            return node["select_list"]
        grouped = bool(node.get("group_expressions"))
        kept = [item for item in node["select_list"] if _item_name(item) in demand or not self._removable(item, grouped)]
        return kept or node["select_list"][:1]

    def _removable(self, item: dict, grouped: bool) -> bool:
        key = (id(item), grouped)
        if key not in self.removable:
            self.removable[key] = _removable(item, grouped)
        return self.removable[key]

    def _bindings(self, table: object, scope: dict[str, dict]) -> list[tuple[str, dict | None]]:
        """(name, query) of each relation of a ``from``: a common table expression's or a
        subquery's query, None for a stored relation or a table function."""
        found: list[tuple[str, dict | None]] = []
        for current in _from_items(table):
            kind = current.get("type")
            if kind == "BASE_TABLE":
                name = current["table_name"].lower()
                found.append(((current.get("alias") or name).lower(), scope.get(name)))
            elif kind == "SUBQUERY":
                found.append(((current.get("alias") or "").lower(), current["subquery"]["node"]))
            else:
                found.append(((current.get("alias") or "").lower(), None))
        return found

    def _visit(self, node: dict) -> None:
        demand = self.demand[id(node)]
        scope = self.scopes.get(id(node), {})
        if node.get("type") != "SELECT_NODE":  # a set operation: every column of both sides
            for key in ("left", "right", "children"):
                for child in (node.get(key) if isinstance(node.get(key), list) else [node.get(key)]):
                    if isinstance(child, dict) and child.get("type"):
                        self._need(child, ALL)
            return
        bindings = self._bindings(node.get("from_table"), scope) + self.outer.get(id(node), [])
        for table in _from_items(node.get("from_table")):
            if table.get("type") == "SUBQUERY":  # a lateral subquery sees the other relations
                inner = table["subquery"]["node"]
                self.outer[id(inner)] = [b for b in bindings if b[1] is not inner]
        targets = [query for _, query in bindings if query is not None]
        parts: list[object] = [self.kept(node)]
        parts += [node.get(key) for key in ("where_clause", "group_expressions", "group_sets", "having", "qualify",
                                            "modifiers", "sample")]
        parts += _join_parts(node.get("from_table"))
        for part in parts:
            for item in self._expressions(part, bindings):
                if item.get("class") == "COLUMN_REF":
                    names = [n.lower() for n in item["column_names"]]
                    owner = next((query for alias, query in bindings if len(names) > 1 and alias == names[0]), False)
                    if owner is not False:
                        if owner is not None:
                            self._need(owner, {names[1]})
                    else:
                        for query in targets:
                            self._need(query, {names[0]})
                elif item.get("class") == "STAR":
                    relation = (item.get("relation_name") or "").lower()
                    chosen = [query for alias, query in bindings if query is not None and (not relation or alias == relation)]
                    for query in chosen:
                        self._need(query, demand)
        for name, query in bindings:
            if query is not None and id(query) not in self.demand:
                self._need(query, set())  # read for its rows even when no column is

    def _expressions(self, part: object, bindings: list) -> Iterator[dict]:
        """The column references and stars of ``part``; an expression's subquery is a query
        demanded whole, which sees ``bindings`` too."""
        stack = [part]
        while stack:
            current = stack.pop()
            if isinstance(current, list):
                stack.extend(current)
            elif isinstance(current, dict):
                if current.get("class") == "SUBQUERY":
                    inner = current["subquery"]["node"]
                    self.outer[id(inner)] = bindings
                    self._need(inner, ALL)
                    stack.append(current.get("child"))
                    continue
                if current.get("class") in ("COLUMN_REF", "STAR"):
                    yield current
                    if current.get("class") == "STAR":
                        stack += [current.get("replace_list"), current.get("expr")]
                    continue
                stack.extend(current.values())


def _from_items(table: object) -> Iterator[dict]:
    """The relations of a ``from`` (the leaves of its joins), left to right."""
    if not isinstance(table, dict):
        return
    if table.get("type") == "JOIN":
        yield from _from_items(table.get("left"))
        yield from _from_items(table.get("right"))
    else:
        yield table


def _join_parts(table: object, skipped: dict | None = None) -> list[object]:
    """The conditions and ``using`` columns of a ``from``'s joins (but ``skipped``'s) and its
    table functions' calls."""
    parts: list[object] = []
    stack = [table]
    while stack:
        current = stack.pop()
        if isinstance(current, dict) and current.get("type") == "JOIN":
            if current is not skipped:
                parts.append(current.get("condition"))
                parts += [{"class": "COLUMN_REF", "column_names": [name]} for name in current.get("using_columns") or []]
            stack += [current.get("left"), current.get("right")]
        elif isinstance(current, dict) and current.get("type") == "TABLE_FUNCTION":
            parts.append(current.get("function"))
    return parts


def _ctes(node: object) -> Iterator[tuple[list, dict]]:
    """Every common table expression of the tree: (its map, its entry)."""
    for item in _walk(node):
        cte_map = item.get("cte_map")
        if isinstance(cte_map, dict):
            entries = cte_map.get("map", [])
            for entry in list(entries):
                yield entries, entry


@functools.cache
def stored_relations() -> dict[str, sqlfiles.Model]:
    """The model of every relation the files of sql/ produce, by name (their headers' columns
    and ``grain:`` keys)."""
    models = (sqlfiles.model(path) for path in sqlfiles.model_files())
    return {model.produces.lower(): model for model in models if model.produces}


def _stored_key(table: str) -> set[str] | None:
    model = stored_relations().get(table)
    return None if model is None or not model.key else {name.lower() for name in model.key}


def _output_names(query: dict | None) -> set[str] | None:
    """The column names of a query, None when a ``*`` or an unnamed item hides some."""
    if query is None or query.get("type") != "SELECT_NODE":
        return None
    names = {_item_name(item) for item in query["select_list"]}
    return None if None in names or any(i.get("class") == "STAR" for i in query["select_list"]) else names


def _keys(query: dict | None, table: str | None, scope: dict[str, dict], depth: int = 0) -> list[set[str]]:
    """Sets of columns on which the rows of a relation are unique (a stored relation: its
    declared grain; a query: its ``group by``, ``distinct``, a single row, or its one source's
    keys passed through)."""
    if query is None:
        key = _stored_key(table or "")
        return [key] if key else []
    if query.get("type") != "SELECT_NODE" or depth > 20:
        return []
    items = query["select_list"]
    if any(_calls(item) & _ROW_MAKERS for item in items):
        return []
    names = {_item_name(item) for item in items}
    for modifier in query.get("modifiers") or []:
        if modifier.get("type") == "DISTINCT_MODIFIER":
            return [] if modifier.get("distinct_on_targets") else [{n for n in names if n}]
    groups = query.get("group_expressions") or []
    if groups:
        if all(g.get("class") == "COLUMN_REF" for g in groups):
            columns = {g["column_names"][-1].lower() for g in groups}
            if columns <= names:
                return [columns]
        return []
    if any(_calls(item) & _AGGREGATES for item in items):
        return [set()]  # one row
    source = query.get("from_table") or {}
    passed = {_item_name(item) for item in items if item.get("class") == "COLUMN_REF"
              and (not item.get("alias") or item["alias"].lower() == item["column_names"][-1].lower())}
    starred = any(item.get("class") == "STAR" and not item.get("relation_name") for item in items)
    if source.get("type") == "BASE_TABLE":
        name = source["table_name"].lower()
        inner = _keys(scope.get(name), name, scope, depth + 1)
    elif source.get("type") == "SUBQUERY":
        inner = _keys(source["subquery"]["node"], None, scope, depth + 1)
    else:
        return []
    return [key for key in inner if starred or key <= passed]


def _conjuncts(condition: dict | None) -> list[dict]:
    if condition is None:
        return []
    if condition.get("type") == "CONJUNCTION_AND":
        return [part for child in condition["children"] for part in _conjuncts(child)]
    return [condition]


def _references(parts: Iterable[object]) -> Iterator[dict]:
    """The column references and stars of ``parts`` (subqueries included)."""
    for part in parts:
        for item in _walk(part):
            if item.get("class") in ("COLUMN_REF", "STAR"):
                yield item


def _drop_joins(root: dict, scopes: dict[int, dict[str, dict]], nodes: dict[int, dict]) -> bool:
    """Remove each left join that gives its query nothing: none of the joined relation's
    columns read outside its own condition, and at most one joined row per row (the condition
    equates a key of the joined relation, or is false). True when one was removed."""
    removed = False
    for key, node in nodes.items():
        if node.get("type") != "SELECT_NODE" or (node.get("from_table") or {}).get("type") != "JOIN":
            continue
        scope = scopes.get(key, {})
        holder, field = node, "from_table"
        while True:
            join = holder[field]
            if join.get("type") != "JOIN":
                break
            right = join["right"]
            if join.get("join_type") == "LEFT" and join.get("ref_type") == "REGULAR" and right.get("type") in (
                    "BASE_TABLE", "SUBQUERY") and _removable_join(node, join, right, scope):
                holder[field] = join["left"]  # the same holder: look at what is there now
                removed = True
                continue
            holder, field = join, "left"
    return removed


def _removable_join(node: dict, join: dict, right: dict, scope: dict[str, dict]) -> bool:
    table = right["table_name"].lower() if right.get("type") == "BASE_TABLE" else None
    alias = (right.get("alias") or table or "").lower()
    query = scope.get(table) if table else right["subquery"]["node"]
    if not alias or (table and query is None and _stored_key(table) is None):
        return False
    columns = _output_names(query) if query is not None else {c.lower() for c in stored_relations()[table].columns}
    if columns is None:
        return False
    others = [node["select_list"]] + [node.get(k) for k in ("where_clause", "group_expressions", "group_sets",
                                                             "having", "qualify", "modifiers")]
    others += _join_parts(node["from_table"], skipped=join)
    for item in _references(others):
        if item.get("class") == "STAR":
            if not item.get("relation_name") or item["relation_name"].lower() == alias:
                return False
            continue
        names = [n.lower() for n in item["column_names"]]
        if names[0] == alias or (len(names) == 1 and names[0] in columns):
            return False
    condition = join.get("condition")
    if _truth(condition) is False:
        return True
    equated = set()
    for part in _conjuncts(condition):
        if part.get("type") == "COMPARE_EQUAL":
            for side, other in ((part["left"], part["right"]), (part["right"], part["left"])):
                if side.get("class") == "COLUMN_REF" and len(side["column_names"]) == 2 and \
                        side["column_names"][0].lower() == alias and not any(
                            r.get("class") == "COLUMN_REF" and r["column_names"][0].lower() == alias
                            for r in _walk(other)):
                    equated.add(side["column_names"][1].lower())
    return any(key <= equated for key in _keys(query, table, scope))


#: Calls that read a struct whole (its fields all count): no field is removed where one is made
_WHOLE_STRUCT_READERS = frozenset({"list_sort", "array_sort", "list_reverse_sort", "list_distinct", "array_distinct",
                                   "list_unique", "array_unique", "to_json", "json_object", "list_has_any",
                                   "list_has_all", "histogram", "struct_keys", "row_to_json"})


def _field_names(node: object) -> Counter:
    """The names ``node`` reads a column or a struct field by (references and string constants)."""
    names: Counter = Counter()
    for item in _walk(node):
        if item.get("class") == "COLUMN_REF":
            names.update(name.lower() for name in item["column_names"])
        elif item.get("class") == "CONSTANT" and (item.get("literal") or {}).get("kind") == "STRING":
            names[item["literal"]["text"].lower()] += 1  # struct_extract(x, 'field'), x['field']
    return names


def _drop_fields(root: dict) -> bool:
    """Remove each field of a ``{'name': ...}`` (struct_pack) that no name of the statement
    outside it reads. True when one was removed."""
    if _calls(root) & _WHOLE_STRUCT_READERS:
        return False
    names = _field_names(root)
    removed = False
    for item in list(_walk(root)):
        if item.get("class") != "FUNCTION" or item.get("function_name", "").lower() != "struct_pack":
            continue
        arguments = item["arguments"]
        own = _field_names(arguments)
        kept = [a for a in arguments if not a.get("name") or names[a["name"].lower()] - own[a["name"].lower()] > 0]
        if kept and len(kept) < len(arguments):
            item["arguments"] = kept
            removed = True
    return removed


# ---- aliases ------------------------------------------------------------------------------

#: What a ``from`` item may not carry to stand for its relation as it is
_RENAMING = ("alias", "sample", "at_clause", "column_name_alias")


def _select_star_from(query: dict) -> dict:
    """The ``from`` item of a query that is only ``select * from item`` (no clause, modifier or
    qualified star; its own ``with`` allowed), else an empty dict."""
    if query.get("type") != "SELECT_NODE" or query.get("modifiers"):
        return {}
    if any(query.get(clause) for clause in ("where_clause", "group_expressions", "group_sets", "having",
                                            "qualify", "sample")):
        return {}
    items = query["select_list"]
    star = items[0] if len(items) == 1 else {}
    if star.get("class") != "STAR" or any(star.get(part) for part in (
            "relation_name", "exclude_list", "replace_list", "rename_list", "qualified_exclude_list", "columns",
            "expr")):
        return {}
    table = query.get("from_table") or {}
    return {} if any(table.get(part) for part in _RENAMING) else table


def _alias_of(query: dict) -> dict | None:
    """The table of a query that is only ``select * from table`` (no clause, no alias, no
    ``with``), else None."""
    table = _select_star_from(query)
    if table.get("type") != "BASE_TABLE" or query["cte_map"]["map"]:
        return None
    return table


def _references_by_scope(tree: dict) -> dict[tuple[int, str], list[dict]]:
    """Each ``from`` reference to a name (a BASE_TABLE node), keyed by the query whose common
    table expression it reads (``(id(query), name)``; the innermost query defining the name
    around it) or, for a stored relation, by ``(0, name)``: one walk of the tree."""
    found: dict[tuple[int, str], list[dict]] = {}
    stack: list[tuple[object, tuple[tuple[int, frozenset[str]], ...]]] = [(tree, ())]
    while stack:
        current, scopes = stack.pop()
        if isinstance(current, list):
            stack.extend((item, scopes) for item in current)
            continue
        if not isinstance(current, dict):
            continue
        cte_map = current.get("cte_map")
        if isinstance(cte_map, dict) and cte_map["map"]:
            scopes = (*scopes, (id(current), frozenset(entry["key"].lower() for entry in cte_map["map"])))
        if current.get("type") == "BASE_TABLE":
            name = current.get("table_name", "").lower()
            owner = next((key for key, names in reversed(scopes) if name in names), 0)
            found.setdefault((owner, name), []).append(current)
            continue
        stack.extend((value, scopes) for value in current.values())
    return found


def _inline_aliases(tree: dict) -> bool:
    """Replace each common table expression that only renames a table (``x as (select * from
    t)``, as the engines bind a stage made once to a stage's name) by that table, read under
    the expression's name (``from t as x``): the same rows and columns, one binding less for
    DuckDB. Not when a reference names a schema, or ``t`` is itself a common table expression
    of the statement (it could be shadowed where ``x`` is read). One walk finds every reference."""
    defined = {entry["key"].lower() for _, entry in _ctes(tree)}
    references = None
    changed = False
    for owner in list(_walk(tree)):
        cte_map = owner.get("cte_map")
        if not isinstance(cte_map, dict):
            continue
        for entry in list(cte_map["map"]):
            table = _alias_of(entry["value"]["query_node"])
            if table is None or table["table_name"].lower() in defined:
                continue
            if entry["value"].get("materialized") not in (None, "CTE_MATERIALIZE_DEFAULT"):
                continue
            if references is None:
                references = _references_by_scope(tree)
            readers = references.get((id(owner), entry["key"].lower()), [])
            # a reader may rename the table (its alias stays), not qualify, sample or re-column it
            if any(reader.get(part) for reader in readers
                   for part in ("schema_name", "catalog_name", "sample", "at_clause", "column_name_alias")):
                continue
            for reader in readers:
                alias = reader.get("alias") or reader["table_name"]
                reader.update({key: copy.deepcopy(value) for key, value in table.items()
                               if key not in ("alias", "query_location", "query_location_length")})
                reader["alias"] = alias
            cte_map["map"].remove(entry)
            changed = True
    return changed


def _unwrap_subqueries(tree: dict) -> bool:
    """Replace each query that is only ``[with ...] select * from (subquery)`` (no clause, the
    subquery unaliased and unrenamed, no name defined in both) by the subquery, its own common
    table expressions after the wrapper's: the same rows, one query level less for DuckDB to
    bind."""
    changed = False
    for node in list(_walk(tree)):
        table = _select_star_from(node)
        if table.get("type") != "SUBQUERY":
            continue
        inner = table["subquery"]["node"]
        outer_entries = node["cte_map"]["map"]
        inner_map = inner.get("cte_map")
        if outer_entries and not isinstance(inner_map, dict):
            continue
        inner_entries = inner_map["map"] if isinstance(inner_map, dict) else []
        if {entry["key"].lower() for entry in outer_entries} & {entry["key"].lower() for entry in inner_entries}:
            continue
        if outer_entries:
            inner_map["map"] = outer_entries + inner_entries
        node.clear()
        node.update(inner)
        changed = True
    return changed


def _dead_code(tree: dict, outputs: Iterable[str] | None = None) -> None:
    """Remove from ``tree`` (in place) the select items no reader reads, the left joins that
    give nothing and the common table expressions nothing reads, until nothing changes
    (``outputs``: the columns the statement's caller reads, None: all)."""
    root = tree["statements"][0]["node"]
    while True:
        live = _Liveness(root, outputs)
        for key, node in live.nodes.items():
            if node.get("type") == "SELECT_NODE" and key in live.demand:
                node["select_list"] = live.kept(node)
        for entries, entry in list(_ctes(root)):
            if id(entry["value"]["query_node"]) not in live.demand:
                entries.remove(entry)
        joins = _drop_joins(root, live.scopes, {k: n for k, n in live.nodes.items() if k in live.demand})
        if not (_drop_fields(root) or joins):
            return


@functools.lru_cache(maxsize=64)
def prune(text: str) -> str:
    """``text`` without the select items and common table expressions nothing reads."""
    def compute() -> str:
        tree = parse(text)
        _dead_code(tree)
        while _inline_aliases(tree) or _unwrap_subqueries(tree):
            pass
        return layout(render(tree))

    return _stored("prune", [text], compute)


@functools.lru_cache(maxsize=256)
def _family_tree(family: str) -> str:
    return json.dumps(parse(sqlfiles.read(f"metrics/metric_{family}.sql")))


def _kinds_named(tree: dict) -> set[str]:
    """The kinds a family's SQL compares ``kind`` with (its formulas; ``X*`` for
    ``starts_with(kind, 'X')``)."""
    named: set[str] = set()
    for node in _walk(tree):
        found = _kind_test(node)
        if found is not None:
            test, constants = found
            named.update(f"{text}*" if test == "prefix" else text for text in constants)
    return named


def _is_named(kind: str, named: set[str]) -> bool:
    """Whether ``kind`` is one of ``named`` (``X*``: every kind starting with X)."""
    return kind in named or any(name.endswith("*") and kind.startswith(name[:-1]) for name in named)


@functools.lru_cache(maxsize=256)
def family(name: str, kinds: frozenset[str]) -> str:
    """sql/metrics/metric_<name>.sql compiled for measures of ``kinds`` only: the kind
    comparisons decided, the dead code removed. A kind the family names nowhere (it compares
    ``kind`` with others) is refused as its ``else error(...)`` would:
    :class:`~pyeval.errors.MeasureParamError` ``metric_<name>: no formula for measure kind K``."""
    path = f"metrics/metric_{name}.sql"
    outputs = sqlfiles.model(path).columns

    def compute() -> dict[str, str]:
        original = json.loads(_family_tree(name))
        named = _kinds_named(original)
        for kind in sorted(kinds):
            if named and not _is_named(kind, named):  # the message the family's own else error(...) gives
                return {"error": f"metric_{name}: no formula for measure kind {kind}"}
        tree = _fold(original, frozenset(kinds))
        assert isinstance(tree, dict)
        _dead_code(tree, outputs)
        return {"sql": layout(render(tree))}

    compiled = _stored("family", [name, sorted(kinds), sqlfiles.read(path), list(outputs)], compute)
    if "error" in compiled:
        raise MeasureParamError(compiled["error"])
    return compiled["sql"]


@functools.lru_cache(maxsize=512)
def reads(text: str) -> frozenset[str]:
    """The relations ``text`` reads that it does not define (lower case)."""
    def compute() -> list[str]:
        tree = parse(text)
        defined = {entry["key"].lower() for _, entry in _ctes(tree)}
        return sorted({item["table_name"].lower() for item in _walk(tree) if item.get("type") == "BASE_TABLE"} - defined)

    return frozenset(_stored("reads", [text], compute))


def split(text: str, per_call: Iterable[str], per_call_parameters: Iterable[str] = ()
          ) -> tuple[list[tuple[str, str]], str]:
    """``text`` split in two for an engine that runs it many times on new runs: the common
    table expressions of its outer ``with`` that read no relation of ``per_call`` and no
    parameter of ``per_call_parameters`` (directly or through others) and that the rest reads,
    each ``(name, select)`` (with the ones it reads in its own ``with``), to be made once; and
    ``text`` without them, reading them by name."""
    changing = sorted({name.lower() for name in per_call})
    bound = sorted(per_call_parameters)
    once, rest = _stored("split", [text, changing, bound], lambda: _split(text, changing, bound))
    return [(name, select) for name, select in once], rest


def _split(text: str, per_call: Iterable[str], per_call_parameters: Iterable[str]
           ) -> tuple[list[tuple[str, str]], str]:
    tree = parse(text)
    while _unwrap_subqueries(tree):  # ``with a as (...) select * from (with b as (...) ...)``: one ``with``
        pass
    root = tree["statements"][0]["node"]
    entries = (root.get("cte_map") or {}).get("map", [])
    changing = {name.lower() for name in per_call}
    reads: dict[str, set[str]] = {}
    fixed: list[dict] = []
    for entry in entries:
        name = entry["key"].lower()
        query = entry["value"]["query_node"]
        reads[name] = {item["table_name"].lower() for item in _walk(query) if item.get("type") == "BASE_TABLE"}
        bound = any(item.get("class") == "PARAMETER" and item["identifier"] in per_call_parameters
                    for item in _walk(query))
        if reads[name] & changing or bound or entry["value"].get("aliases") or query.get("type") != "SELECT_NODE":
            changing.add(name)
        else:
            fixed.append(entry)
    fixed_names = {entry["key"].lower() for entry in fixed}
    # a projection of one relation is cheaper read again than made a table: it stays, and the
    # tables made once that read it take it into their own ``with``
    kept = {entry["key"].lower() for entry in fixed if _projection(entry["value"]["query_node"])}
    rest = [entry for entry in entries if entry["key"].lower() not in fixed_names - kept]
    body = {key: value for key, value in root.items() if key != "cte_map"}
    wanted = {name for entry in rest for name in reads[entry["key"].lower()]}
    wanted |= {item["table_name"].lower() for item in _walk(body) if item.get("type") == "BASE_TABLE"}
    once = []
    for entry in fixed:
        name = entry["key"].lower()
        if name not in wanted or name in kept:
            continue
        needed, pending = set(), [name]
        while pending:
            for read in reads[pending.pop()] & fixed_names - needed:
                needed.add(read)
                pending.append(read)
        query = copy.deepcopy(entry["value"]["query_node"])
        own = (query.get("cte_map") or {}).get("map", [])
        query["cte_map"] = {"map": [copy.deepcopy(e) for e in fixed if e["key"].lower() in needed] + own}
        once.append((name, layout(render({**tree, "statements": [{**tree["statements"][0], "node": query}]}))))
    root["cte_map"] = {**root["cte_map"], "map": rest}
    return once, layout(render(tree))


def _projection(query: dict) -> bool:
    """Whether ``query`` only picks columns of one relation (no filter, group, order, window,
    aggregate or row-making call)."""
    if query.get("type") != "SELECT_NODE" or (query.get("from_table") or {}).get("type") != "BASE_TABLE":
        return False
    if query.get("where_clause") or query.get("group_expressions") or query.get("having") or query.get("qualify"):
        return False
    if query.get("modifiers") or (query.get("cte_map") or {}).get("map"):
        return False
    return all(item.get("class") in ("COLUMN_REF", "STAR") for item in query["select_list"])


def outside_quotes(text: str) -> Iterator[tuple[int, str, int]]:
    """Each character of SQL ``text`` outside its quoted strings and identifiers, with its
    position and the depth of parentheses it stands at (an opening parenthesis and its closing
    one at the same depth, one more than around them)."""
    depth, quote = 0, ""
    for position, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
            continue
        if char in "'\"":
            quote = char
            continue
        if char == "(":
            depth += 1
        yield position, char, depth
        if char == ")":
            depth -= 1


def layout(text: str) -> str:
    """``text`` (a statement as :func:`render` prints it, on one line) with each common table
    expression of its outer ``with`` on a line of its own, then the final select."""
    lines, start = [], 0
    for position, char, depth in outside_quotes(text):
        if char == ")" and depth == 1 and text.startswith(", ", position + 1):
            lines.append(text[start:position + 2])
            start = position + 3
        elif char == ")" and depth == 1 and text.startswith(" SELECT ", position + 1):
            lines.append(text[start:position + 1])
            start = position + 2
    return "\n".join(lines + [text[start:]])


@functools.lru_cache(maxsize=512)
def parameters(text: str) -> frozenset[str]:
    """The names of the parameters (``$name``) ``text`` binds."""
    return frozenset(_stored("parameters", [text], lambda: sorted(
        {item["identifier"] for item in _walk(parse(text)) if item.get("class") == "PARAMETER"})))


# ---- the compile cache ---------------------------------------------------------------------

#: Where compiled statements are kept between processes (``PYEVAL_CACHE_DIR``, ``none`` for
#: nowhere; default ``$XDG_CACHE_HOME/pyeval`` or ``~/.cache/pyeval``), under ``compiled/``
CACHE_VARIABLE = "PYEVAL_CACHE_DIR"


def cache_folder() -> Path | None:
    """The folder of the compile cache, None when it is off."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen is not None and chosen.strip().lower() in ("", "none", "off"):
        return None
    root = Path(chosen) if chosen else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pyeval"
    return root / "compiled"


@functools.cache
def _compiler() -> str:
    """What a compiled statement depends on besides its own inputs: this compiler's source,
    the DuckDB that parses and prints, and the files of sql/ (whose headers give the stored
    relations' keys and columns), by name, size and time (no file read)."""
    made = hashlib.sha256(Path(__file__).read_bytes())
    made.update(duckdb.__version__.encode())
    root = sqlfiles.resource_root("sql")
    for path in sorted(root.rglob("*.sql")):
        status = path.stat()
        made.update(f"{path.relative_to(root)}:{status.st_size}:{status.st_mtime_ns}".encode())
    return made.hexdigest()


def _stored(function: str, inputs: list, compute: Callable[[], object]) -> Any:
    """``compute()``'s value (JSON), kept in the compile cache under a hash of ``function``,
    ``inputs`` and the compiler, and read from it when there (a cache that cannot be read or
    written is skipped: the value is computed)."""
    folder = cache_folder()
    if folder is None:
        return compute()
    key = hashlib.sha256(json.dumps([_compiler(), function, inputs]).encode()).hexdigest()
    path = folder / f"{key}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = compute()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{key}.{os.getpid()}.{threading.get_ident()}.partial"
        partial.write_text(json.dumps(value), encoding="utf-8")
        os.replace(partial, path)  # whole or not at all, whoever writes it at the same time
    except OSError:
        pass
    return value


def kinds_of(measures: Iterable) -> frozenset[str]:
    """The kinds (formulas) of ``measures``, as ``requested_measures.kind`` holds them."""
    return frozenset(m.definition.kind or m.definition.name for m in measures)
