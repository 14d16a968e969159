"""DuckDB's syntax trees (``json_serialize_sql``) across versions: before 2.0 (1.4, 1.5, the
versions Ibis, JupySQL and the DuckDB CLI on PyPI pin) they have another shape; pyeval's SQL
compiler (pyeval/core/compile.py) reads and writes 2.0's, and these functions turn a 1.x tree into
it and back. On DuckDB 2.0 they return the tree as it is."""
from __future__ import annotations

import duckdb

#: The installed DuckDB's (major, minor) version.
DUCKDB_VERSION: tuple[int, int] = tuple(int(part) for part in duckdb.__version__.split(".")[:2])

#: True on a DuckDB before 2.0.
BEFORE_2 = DUCKDB_VERSION < (2, 0)


def tree_from_duckdb(tree: dict) -> dict:
    """A syntax tree from ``json_serialize_sql`` in DuckDB 2.0's shape, which pyeval's SQL compiler
    (pyeval/core/compile.py) reads. Before 2.0 a CTE's select is ``value.query.node`` (2.0:
    ``value.query_node``), a function's arguments are its ``children`` (2.0: ``arguments``, each
    with its ``name`` and ``expression``), a constant is a typed ``value`` (2.0: a ``literal`` with its kind and
    text), ``x not in (...)`` is one ``COMPARE_NOT_IN`` (2.0: ``OPERATOR_NOT`` of a ``COMPARE_IN``),
    ``true`` is ``CAST('t' AS BOOLEAN)``, ``[]`` is ``main.list_value()``, ``list(x ORDER BY x)`` is
    ``list_sort(list(x), ...)`` and
    (1.4) a materialized CTE is a ``CTE_NODE``
    around the query that reads it; :func:`tree_for_duckdb` turns it back (and writes a
    cross join as an inner join on true, which DuckDB 1.x prints in the right place)."""
    if not BEFORE_2:
        return tree
    return _walk(tree, _to_2)


def tree_for_duckdb(tree: dict) -> dict:
    """``tree`` in the shape the installed DuckDB's ``json_deserialize_sql`` reads (the inverse
    of :func:`tree_from_duckdb`); a new tree, ``tree`` is left as it is."""
    if not BEFORE_2:
        return tree
    return _walk(tree, _to_1)


def _constant_true() -> dict:
    return {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": "", "query_location": 18446744073709551615,
            "literal": {"kind": "BOOLEAN", "text": "true"}}


def _walk(node: object, change) -> object:
    """A copy of ``node`` with ``change`` applied to every dict, children first."""
    if isinstance(node, list):
        return [_walk(item, change) for item in node]
    if isinstance(node, dict):
        return change({key: _walk(value, change) for key, value in node.items()})
    return node


def _to_2(node: dict) -> dict:
    if node.get("type") == "CTE_NODE":  # DuckDB 1.4: a materialized CTE wraps the query that reads it
        query = node["child"]
        if not (query.get("cte_map") or {}).get("map"):
            query["cte_map"] = node["cte_map"]
        if node.get("modifiers") and not query.get("modifiers"):
            query["modifiers"] = node["modifiers"]
        return query
    if isinstance(node.get("query"), dict) and "node" in node["query"] and "aliases" in node:  # a CTE
        node["query_node"] = node.pop("query")["node"]
    elif node.get("class") == "FUNCTION" and "children" in node:
        named = node.get("function_name", "").lower() == "struct_pack"  # the fields' names
        node["arguments"] = [{"name": child.get("alias", "") if named else "", "expression": child}
                             for child in node.pop("children")]
        if node.get("function_name", "").lower() == "list_value" and node.get("schema") == "main":
            node["schema"] = ""  # 1.x's parser writes [] as main.list_value(), 2.0's as list_value()
        return _ordered_list(node) or node
    elif node.get("class") == "CONSTANT" and isinstance(node.get("value"), dict):
        value = node["value"]
        if value.get("type", {}).get("id") == "VARCHAR" and not value.get("is_null"):
            node["literal"] = {"kind": "STRING", "text": value["value"]}
    elif node.get("class") == "OPERATOR" and node.get("type") == "COMPARE_NOT_IN":
        inner = {**node, "type": "COMPARE_IN", "alias": ""}
        return {"class": "OPERATOR", "type": "OPERATOR_NOT", "alias": node.get("alias", ""),
                "query_location": node.get("query_location"), "children": [inner]}
    elif (node.get("class") == "CAST" and (node.get("cast_type") or {}).get("id") == "BOOLEAN"
          and (node["child"].get("literal") or {}).get("text") in ("t", "f")):
        return {"class": "CONSTANT", "type": "VALUE_CONSTANT", "alias": node.get("alias", ""), "query_location": node["child"]["query_location"],
                "literal": {"kind": "BOOLEAN", "text": "true" if node["child"]["literal"]["text"] == "t" else "false"}}
    return node


#: list_sort's order and null order arguments as DuckDB 1.x's parser writes them: an ORDER BY's.
_ORDERS = {"ASCENDING", "DESCENDING", "ORDER_DEFAULT"}
_NULL_ORDERS = {"NULLS FIRST", "NULLS LAST", "ORDER_DEFAULT"}


def _ordered_list(node: dict) -> dict | None:
    """``list(x ORDER BY x)``, which DuckDB 1.x's parser writes as ``list_sort(list(x), order,
    null order)`` (the same one sort), as 2.0 keeps it: the ordered aggregate; None for any
    other function. (Spark's transpiler knows the ordered aggregate, not list_sort.)"""
    if node.get("function_name", "").lower() != "list_sort" or len(node["arguments"]) != 3:
        return None
    listed, order, nulls = (argument["expression"] for argument in node["arguments"])
    texts = [(constant.get("literal") or {}).get("text") for constant in (order, nulls)]
    if (listed.get("class") != "FUNCTION" or listed.get("function_name", "").lower() != "list"
            or len(listed.get("arguments", ())) != 1 or listed.get("distinct") or listed.get("filter")
            or (listed.get("order_bys") or {}).get("orders") or texts[0] not in _ORDERS or texts[1] not in _NULL_ORDERS):
        return None
    listed["order_bys"] = {"type": "ORDER_MODIFIER", "orders": [
        {"type": texts[0], "null_order": texts[1], "expression": listed["arguments"][0]["expression"]}]}
    listed["alias"] = node.get("alias", "")
    return listed


def _to_1(node: dict) -> dict:
    if "query_node" in node and "aliases" in node:  # a CTE
        node["query"] = {"node": node.pop("query_node"), "named_param_map": []}
    elif node.get("type") == "JOIN" and node.get("ref_type") == "CROSS":
        # DuckDB 1.x prints a cross join as a comma, which binds looser than the joins after
        # it (a cross join b left join c on a.x = c.x would become a lateral join it refuses)
        node.update(ref_type="REGULAR", join_type="INNER", condition=_to_1(_constant_true()))
    elif (node.get("type") == "OPERATOR_NOT" and len(node.get("children", ())) == 1
          and node["children"][0].get("type") == "COMPARE_IN"):
        return {**node["children"][0], "type": "COMPARE_NOT_IN", "alias": node.get("alias", ""),
                "query_location": node.get("query_location")}
    elif node.get("class") == "FUNCTION" and "arguments" in node:
        node["children"] = [{**argument["expression"], "alias": argument["name"]} if argument.get("name")
                            else argument["expression"] for argument in node.pop("arguments")]
    elif node.get("class") == "CONSTANT" and "literal" in node:
        literal = node.pop("literal")
        if "value" not in node:  # made by the compiler: a boolean or a string
            kind = {"BOOLEAN": "BOOLEAN", "STRING": "VARCHAR"}[literal["kind"]]
            text = literal["text"]
            node["value"] = {"type": {"id": kind, "type_info": None}, "is_null": False,
                             "value": text == "true" if kind == "BOOLEAN" else text}
        node.pop("query_location_length", None)
    return node
