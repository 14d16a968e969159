"""The Spark SQL form of pyeval's SQL, generated with SQLGlot from the DuckDB files.

The views (sql/views/), the evaluation stages (sql/evaluation/) and the metric families
(sql/metrics/) are written for DuckDB. This module is the only place that turns them into Spark
SQL: it parses a file with SQLGlot's DuckDB dialect, rewrites the few constructs that SQLGlot
passes through untranslated or that mean something else on Spark into their portable form (on
the syntax tree, never on text), and generates Spark SQL. Nothing here is a hand-written copy of
a file: the Spark text is derived from the DuckDB text each time (tests/engines checks this).

Rewrites (each applied to the DuckDB syntax tree before generation):

* ``$name`` parameters are bound to literals (strings quoted by SQLGlot, lists as arrays);
* calls of the evaluation macros (sql/evaluation/macros.sql, e.g. ``blended_ratio``) are
  inlined: Spark has no ``create temp macro``;
* ``agg(...) filter (where c) over w`` becomes ``agg(case when c then ... end) over w``: Spark
  accepts ``filter`` on grouped aggregates but not on window aggregates;
* decimal literals (``0.9``, ``2.0``) become double literals: DuckDB's decimal arithmetic ends
  in doubles where Spark's keeps decimals rounded to 6 places (which would break 1e-9 identity);
* ``list(x order by k)`` becomes ``collect_list`` of ``struct(k, x)`` sorted by a comparator on
  the keys, then ``transform`` back to ``x`` (Spark's ``collect_list`` keeps no order), and
  ``sum(x order by k)`` the ``list_sum`` of that array (the same order of additions);
* ``materialized`` hints of common table expressions are dropped;
* DuckDB list functions SQLGlot passes through untranslated get their Spark form: ``len(list)``
  ``size``, ``list_sum`` an ``aggregate`` that skips nulls and is null for an empty list,
  ``list_reduce`` ``aggregate`` (the first element as the start when none is given),
  ``list_slice(l, a, b)`` and ``l[a:b]`` ``slice(l, a, b - a + 1)``, ``error`` ``raise_error``;
* ``product(x)`` (grouped or over a window) is kept: the Spark engine gives its sessions Spark's
  own product aggregate under that name (:func:`pyeval.engines.spark.register_functions`; Spark
  has it in its DataFrame API only). Over a window from the partition's start it multiplies one
  row after another, in the window's order, as DuckDB does (a fold over ``collect_list(x) over
  w`` instead made an array per row: quadratic in the list's length).

DuckDB before 2.0 prints a compiled statement (pyeval/core/compile.py) in another form, which is
read as 2.0's: a lambda argument ``(x -> e)`` or ``("row"(x, i) -> e)`` is parsed as the lambda
(:func:`_arrow_lambda`, the one change to SQLGlot's DuckDB parser), and ``main.f(...)`` (the
functions DuckDB 1.x's parser makes, ``main."trim"``, ``main.struct_pack``) is ``f(...)``
(:func:`_unqualified_functions`): the same Spark SQL as from 2.0's printing.

Anything else SQLGlot cannot translate raises :class:`UntranslatableSQL`; the metric families
that raise it, or that run but disagree with DuckDB, are listed in docs/engines.md.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping

from ..errors import PyevalError
from pyeval.core import duckdb_trees
from pyeval.core.compile import outside_quotes


class UntranslatableSQL(PyevalError):
    """A construct of a DuckDB file that has no Spark form here (docs/engines.md)."""


def _sqlglot():
    try:
        import sqlglot
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise PyevalError("the Spark engine needs SQLGlot: pip install 'pyeval[spark]'") from exc
    return sqlglot


# ---------------------------------------------------------------------------------- rewrites


def literal(value):
    """A SQLGlot literal expression for a bound parameter value."""
    from sqlglot import exp

    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UntranslatableSQL(f"cannot bind the non-finite number {value!r}")
        return exp.Cast(this=exp.Literal.number(repr(value)), to=exp.DataType.build("double"))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[literal(v) for v in value])
    raise UntranslatableSQL(f"cannot bind a parameter of type {type(value).__name__}")


def _bind(tree, parameters: Mapping[str, object]):
    from sqlglot import exp

    def replace(node):
        if isinstance(node, exp.Placeholder) and node.this:
            if node.this not in parameters:
                raise UntranslatableSQL(f"parameter ${node.this} is not bound")
            return literal(parameters[node.this])
        return node

    return tree.transform(replace)


@functools.cache
def _macros() -> dict[str, tuple[tuple[str, ...], object]]:
    """name -> (parameter names, body) of every macro in sql/evaluation/macros.sql."""
    from sqlglot import exp

    from pyeval.core import sqlfiles

    found = {}
    for statement in _sqlglot().parse(sqlfiles.read("evaluation/macros.sql"), read=_dialect()):
        if statement is None:
            continue
        function = statement.this
        if not isinstance(function, exp.UserDefinedFunction):
            raise UntranslatableSQL("macros.sql: only scalar macros can be inlined")
        name = function.this.name.lower()
        found[name] = (tuple(p.name for p in function.expressions), statement.expression)
    return found


def _inline_macros(tree):
    from sqlglot import exp

    macros = _macros()

    def replace(node):
        if isinstance(node, exp.Anonymous) and str(node.this).lower() in macros:
            names, body = macros[str(node.this).lower()]
            if len(node.expressions) != len(names):
                raise UntranslatableSQL(f"macro {node.this} takes {len(names)} arguments")
            arguments = dict(zip(names, node.expressions))

            def substitute(inner):
                if isinstance(inner, exp.Column) and not inner.table and inner.name in arguments:
                    return exp.Paren(this=arguments[inner.name].copy())
                return inner

            return exp.Paren(this=body.copy().transform(substitute))
        return node

    return tree.transform(replace)


def _window_filters(tree):
    """``agg(x) filter (where c) over w`` -> ``agg(case when c then x end) over w``."""
    from sqlglot import exp

    def replace(node):
        if isinstance(node, exp.Window) and isinstance(node.this, exp.Filter):
            condition = node.this.expression.this
            aggregate = node.this.this.copy()
            argument = aggregate.this
            if isinstance(aggregate, exp.Count) and (argument is None or isinstance(argument, exp.Star)):
                aggregate.set("this", exp.case().when(condition.copy(), exp.Literal.number(1)))
            elif argument is not None and not isinstance(argument, exp.Star):
                aggregate.set("this", exp.case().when(condition.copy(), argument.copy()))
            else:
                raise UntranslatableSQL(f"cannot rewrite the window filter of {node.this.sql()}")
            node.set("this", aggregate)
        return node

    return tree.transform(replace)


def _double_literals(tree):
    """Decimal literals as doubles (``0.9`` -> ``cast(0.9 as double)``)."""
    from sqlglot import exp

    def replace(node):
        if (
            isinstance(node, exp.Literal)
            and not node.is_string
            and any(c in node.this for c in ".eE")
            and not isinstance(node.parent, exp.Cast)
        ):
            return exp.Cast(this=node.copy(), to=exp.DataType.build("double"))
        return node

    return tree.transform(replace)


def _ordered(value, keys, condition=None):
    """Spark: the values of a group as an array in the order of ``keys`` (DuckDB ``order by``
    items): ``transform(array_sort(collect_list(struct(k0, k1, v)), comparator), s -> s.v)``."""
    from sqlglot import exp

    fields = [exp.PropertyEQ(this=exp.to_identifier(f"pyeval_k{i}"), expression=key.this.copy())
              for i, key in enumerate(keys)]
    fields.append(exp.PropertyEQ(this=exp.to_identifier("pyeval_v"), expression=value.copy()))
    collected = exp.ArrayAgg(this=exp.Struct(expressions=fields))
    if condition is not None:  # list(...) filter (where c): the filter stays on the aggregate
        collected = exp.Filter(this=collected, expression=condition.copy())
    compare = exp.case()
    for i, key in enumerate(keys):
        left = exp.Dot(this=exp.column("pyeval_l"), expression=exp.to_identifier(f"pyeval_k{i}"))
        right = exp.Dot(this=exp.column("pyeval_r"), expression=exp.to_identifier(f"pyeval_k{i}"))
        before, after = (exp.GT, exp.LT) if key.args.get("desc") else (exp.LT, exp.GT)
        compare = compare.when(before(this=left, expression=right), exp.Literal.number(-1))
        compare = compare.when(after(this=left.copy(), expression=right.copy()), exp.Literal.number(1))
    compare = compare.else_(exp.Literal.number(0))
    ordered = _function("array_sort", collected, _lambda(compare, "pyeval_l", "pyeval_r"))
    values = _lambda(exp.Dot(this=exp.column("pyeval_s"), expression=exp.to_identifier("pyeval_v")), "pyeval_s")
    return _function("transform", ordered, values)


def _ordered_aggregates(tree):
    """``list(x order by k)`` -> the ordered array above (Spark's ``collect_list`` keeps no
    order); ``sum(x order by k)`` -> ``list_sum`` of it (the same summation order as DuckDB);
    ``materialized`` CTE hints dropped (Spark has none)."""
    from sqlglot import exp

    for node in list(tree.find_all(exp.ArrayAgg, exp.Sum)):
        inner = node.this
        if not isinstance(inner, exp.Order):
            continue
        if isinstance(node.parent, exp.Window):
            raise UntranslatableSQL(f"ordered window aggregate {node.sql('duckdb')}")
        condition = node.parent.expression if isinstance(node.parent, exp.Filter) else None
        ordered = _ordered(inner.this, inner.expressions, condition)
        target = node.parent if condition is not None else node
        target.replace(ordered if isinstance(node, exp.ArrayAgg) else _function("list_sum", ordered))
    for cte in tree.find_all(exp.CTE):
        if cte.args.get("materialized") is not None:
            cte.set("materialized", None)
    return tree


def _function(name: str, *arguments):
    from sqlglot import exp

    return exp.Anonymous(this=name, expressions=list(arguments))


def _lambda(body, *names):
    from sqlglot import exp

    return exp.Lambda(this=body, expressions=[exp.to_identifier(n) for n in names])


def _slice(array, start, end):
    """DuckDB's 1-based inclusive ``array[start:end]`` as Spark's ``slice(array, start, length)``."""
    from sqlglot import exp

    length = exp.Greatest(this=exp.Literal.number(0), expressions=[
        exp.Add(this=exp.Sub(this=exp.Paren(this=end.copy()), expression=exp.Paren(this=start.copy())),
                expression=exp.Literal.number(1))])
    return _function("slice", array.copy(), start.copy(), length)


def _list_functions(tree):
    from sqlglot import exp

    def replace(node):
        if isinstance(node, exp.Anonymous):
            name = str(node.this).lower()
            args = node.expressions
            if name == "list_sum" and len(args) == 1:
                # DuckDB: nulls skipped, null for an empty (or all-null) list
                kept = _function("filter", args[0].copy(),
                                 _lambda(exp.Not(this=exp.Is(this=exp.column("pyeval_v"), expression=exp.Null())),
                                         "pyeval_v"))
                start = exp.Cast(this=exp.Null(), to=exp.DataType.build("double"))
                merge = _lambda(exp.Add(this=exp.Coalesce(this=exp.column("pyeval_acc"),
                                                          expressions=[exp.Literal.number(0)]),
                                        expression=exp.column("pyeval_v")), "pyeval_acc", "pyeval_v")
                return _function("aggregate", kept, start, merge)
            if name == "list_reduce" and len(args) == 3:
                return _function("aggregate", args[0].copy(), args[2].copy(), args[1].copy())
            if name == "list_reduce" and len(args) == 2:
                rest = _function("slice", args[0].copy(), exp.Literal.number(2),
                                 _function("size", args[0].copy()))
                return _function("aggregate", rest, _function("element_at", args[0].copy(), exp.Literal.number(1)),
                                 args[1].copy())
            if name == "list_slice" and len(args) == 3:
                return _slice(args[0], args[1], args[2])
            if name == "error" and len(args) == 1:
                return _function("raise_error", args[0].copy())
            if name.startswith(("list_", "array_")) and name not in _SPARK_NAMES:
                raise UntranslatableSQL(f"DuckDB function {name}() has no Spark form here")
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1 and isinstance(node.expressions[0], exp.Slice):
            bounds = node.expressions[0]
            if bounds.this is None or bounds.expression is None:
                raise UntranslatableSQL(f"open list slice {node.sql('duckdb')}")
            return _slice(node.this, bounds.this, bounds.expression)
        return node

    for _ in range(20):  # rewritten calls may hold more calls to rewrite
        before = tree.sql("duckdb")
        tree = tree.transform(replace)
        if tree.sql("duckdb") == before:
            return tree
    raise UntranslatableSQL("list functions nested too deeply")


#: list functions whose DuckDB name Spark also has.
_SPARK_NAMES = frozenset({"array_contains", "array_sort", "array_distinct", "array_max", "array_min",
                          "array_position", "array_remove", "array_union", "array_join"})


def _len_as_size(sql: str) -> str:
    """DuckDB's ``len(list)`` -> ``array_length(list)`` (SQLGlot reads ``len`` as string length;
    pyeval's SQL uses ``len`` for lists and ``length`` for strings). Token-based: strings and
    comments are left alone."""
    from sqlglot.dialects.duckdb import DuckDB
    from sqlglot.tokens import TokenType

    tokens = DuckDB().tokenize(sql)
    pieces, last = [], 0
    for token, following in zip(tokens, tokens[1:]):
        if token.text.lower() == "len" and following.token_type == TokenType.L_PAREN:
            pieces.append(sql[last:token.start])
            pieces.append("array_length")
            last = token.end + 1
    pieces.append(sql[last:])
    return "".join(pieces)


@functools.cache
def _dialect():
    """DuckDB's dialect with list indexes read as written (1-based): SQLGlot's own shift to
    0-based indexes applies only where it can type the index; :func:`_indexes` does all. Its
    parser also reads DuckDB 1.x's printing of a lambda (:func:`_arrow_lambda`)."""
    from sqlglot.dialects.duckdb import DuckDB

    class DuckDBAsWritten(DuckDB):
        INDEX_OFFSET = 0

        class Parser(DuckDB.Parser):
            def _parse_lambda(self, alias: bool = False):
                # only DuckDB before 2.0 prints lambdas with arrows (2.0's arrows are JSON
                # extraction); read at the call: the tests set it
                return (duckdb_trees.BEFORE_2 and _arrow_lambda(self)) or super()._parse_lambda(alias=alias)

    return DuckDBAsWritten


def _arrow_lambda(parser):
    """A function's argument ``(x -> body)`` or ``(row(x, i) -> body)`` (``main.row`` for a lambda
    written with an arrow; ``"row"`` unquoted by :func:`_as_written`) read as the lambda ``lambda
    x: body``, ``lambda x, i: body``; None (the parser where it was) for any other argument, and
    for one that does not end the argument (``(j -> 'a') = 'b'``).

    Why in the parser: DuckDB before 2.0 prints every lambda so (pyeval/core/compile.py's
    statements are DuckDB's printing). Its syntax tree does not record how a lambda was written
    (2.0's has ``syntax_type``), so no tree :func:`pyeval.core.duckdb_trees.tree_for_duckdb` could
    make prints ``lambda x: body``. SQLGlot's DuckDB dialect reads the arrow as JSON extraction, an
    operator whose right side is one term (a string or number literal becomes a JSON path): a
    rewrite of that tree would depend on how DuckDB parenthesises the body and could not restore a
    literal one. Read here, where SQLGlot reads lambdas, the body is one whole expression (SQLGlot's
    own arrow lambda), as DuckDB reads it. (DuckDB 1.x's parser also makes every arrow a lambda, and
    its binder a JSON extraction outside a lambda function's arguments; the SQL the Spark engine
    translates extracts no JSON.)"""
    from sqlglot.tokens import TokenType

    index = parser._index
    if not parser._match(TokenType.L_PAREN):
        return None
    if parser._match_text_seq("MAIN", ".", "ROW", "(") or parser._match_text_seq("ROW", "("):
        names = parser._parse_csv(parser._parse_lambda_arg)  # several parameters: row(x, i)
        if not parser._match(TokenType.R_PAREN):
            parser._retreat(index)
            return None
    else:
        names = [parser._parse_lambda_arg()]
    if not all(names) or not parser._match(TokenType.ARROW):
        parser._retreat(index)
        return None
    lambda_ = parser.LAMBDAS[TokenType.ARROW](parser, names)
    if not parser._match(TokenType.R_PAREN) or (parser._curr and parser._curr.token_type
                                                not in parser.LAMBDA_ARG_TERMINATORS):
        parser._retreat(index)
        return None
    return lambda_


def _unqualified_functions(tree):
    """``main.f(...)``, as DuckDB 1.x prints the functions its parser makes (``main."trim"``,
    ``main.struct_pack``), read as ``f(...)``: SQLGlot takes a qualified call for a user's
    function (passed through, which Spark looks for in a schema ``main``), the unqualified one
    for DuckDB's (``trim``, ``struct_pack`` as a struct)."""
    from sqlglot import exp

    def replace(node):
        if (isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier) and node.this.name.lower() == "main"
                and isinstance(node.expression, exp.Anonymous)):
            # the call without its schema, read as DuckDB's own function (list_value(): an array)
            return _sqlglot().parse_one(node.expression.sql(dialect=_dialect()), read=_dialect())
        return node

    return tree.transform(replace)


def _indexes(tree):
    """DuckDB's 1-based ``list[i]`` as Spark's 0-based ``list[i - 1]``; ``list[-k]`` (from the
    end) as ``element_at(list, -k)``; a 2-argument lambda's index (1-based in DuckDB, 0-based
    in Spark's ``transform`` and ``filter``) as ``i + 1``."""
    from sqlglot import exp

    def replace(node):
        if isinstance(node, exp.Bracket) and len(node.expressions) == 1 and not isinstance(
                node.expressions[0], exp.Slice) and not node.args.get("pyeval_done"):
            index = node.expressions[0]
            if isinstance(index, exp.Literal) and index.is_string:
                return node  # struct field
            if isinstance(index, exp.Neg) and isinstance(index.this, exp.Literal):
                return _function("element_at", node.this.copy(), index.copy())
            if isinstance(index, exp.Literal):
                shifted = exp.Literal.number(int(index.this) - 1)
            else:
                shifted = exp.Sub(this=exp.Paren(this=index.copy()), expression=exp.Literal.number(1))
            result = exp.Bracket(this=node.this.copy(), expressions=[shifted])
            result.set("pyeval_done", True)
            return result
        if isinstance(node, exp.Lambda) and len(node.expressions) == 2 and isinstance(
                node.parent, (exp.Transform, exp.ArrayFilter)):
            position = node.expressions[1].name

            def shift(inner):
                if isinstance(inner, (exp.Identifier, exp.Column)) and inner.name == position and not isinstance(
                        inner.parent, (exp.Dot, exp.Column)) and inner.parent is not node:
                    return exp.Paren(this=exp.Add(this=inner.copy(), expression=exp.Literal.number(1)))
                return inner

            body = _indexes(node.this.transform(shift))  # a replaced node's children are not revisited
            return exp.Lambda(this=body, expressions=[e.copy() for e in node.expressions])
        return node

    return tree.transform(replace)


def _cte_stars(tree):
    """``select a.x, c.*`` where ``c`` is a common table expression of the same query whose
    columns are all named: ``c.*`` expanded to c's columns, less those the select already has.
    DuckDB renames such duplicate columns and reads the first; Spark calls them ambiguous."""
    from sqlglot import exp

    ctes = {cte.alias_or_name: cte.this for cte in tree.find_all(exp.CTE)}
    for select in list(tree.find_all(exp.Select)):
        items = select.expressions
        stars = [item for item in items if isinstance(item, exp.Column) and isinstance(item.this, exp.Star)
                 and item.table in ctes]
        for star in stars:
            source = ctes[star.table]
            if not isinstance(source, exp.Select) or any(isinstance(e, exp.Star) or (
                    isinstance(e, exp.Column) and isinstance(e.this, exp.Star)) for e in source.expressions):
                continue
            named = [e.alias_or_name for e in source.expressions]
            taken = {e.alias_or_name for e in items if e is not star}
            columns = [exp.column(name, table=star.table) for name in named if name not in taken]
            position = items.index(star)
            select.set("expressions", items[:position] + columns + items[position + 1:])
            items = select.expressions
    return tree


def _lateral_subqueries(tree):
    """A subquery joined beside relations it reads (DuckDB finds such a join lateral by
    itself and prints it without ``LATERAL``: pyeval.core.compile's statements) as a
    ``LATERAL`` one, which Spark needs written."""
    exp = _sqlglot().exp
    for join in list(tree.find_all(exp.Join)):
        subquery = join.this
        if not isinstance(subquery, exp.Subquery):
            continue
        inner = {table.alias_or_name for table in subquery.find_all(exp.Table)}  # what it reads itself
        inner |= {alias.name for alias in subquery.find_all(exp.TableAlias)}
        if any(column.table and column.table not in inner for column in subquery.find_all(exp.Column)):
            alias = subquery.args.get("alias")
            subquery.set("alias", None)
            join.set("this", exp.Lateral(this=subquery, view=False, outer=False, alias=alias))
    return tree


_REWRITES = (_unqualified_functions, _lateral_subqueries, _inline_macros, _indexes, _cte_stars, _window_filters,
             _double_literals, _ordered_aggregates, _list_functions)


#: A quoted function name as DuckDB prints one (``"error"(...)``: pyeval.core.compile's statements)
_QUOTED_CALL = re.compile(r'"(\w+)"\(')
#: count(*) as DuckDB prints it: count_star(), or count() with a filter or a window
_EMPTY_COUNT = re.compile(r"\b(?:count_star|count)\(\)")


#: A subquery comparison as DuckDB prints ``x in (select ...)`` and ``x not in (select ...)``
_ANY_ALL = re.compile(r"\s(=\s*ANY|<>\s*ALL|!=\s*ALL)\s*\(")


def _as_written(sql: str) -> str:
    """DuckDB's printed SQL in the forms SQLGlot reads as the files write them: a lambda
    argument ``(lambda x: e)`` as ``lambda x: e``, ``"error"(...)`` as ``error(...)``,
    ``count_star()`` and ``count()`` as ``count(*)``, ``x = ANY(select ...)`` as ``x IN
    (select ...)`` (``<> ALL``: ``NOT IN``)."""
    sql = _EMPTY_COUNT.sub("count(*)", _QUOTED_CALL.sub(r"\1(", sql))
    sql = _ANY_ALL.sub(lambda match: " IN (" if "ANY" in match.group(1) else " NOT IN (", sql)
    opened, dropped = [], set()  # the depths of the lambdas' parentheses, the positions dropped
    for position, char, depth in outside_quotes(sql):
        if char == "(" and sql.startswith("lambda ", position + 1):
            opened.append(depth)
            dropped.add(position)
        elif char == ")" and opened and opened[-1] == depth:
            opened.pop()
            dropped.add(position)
    return "".join(char for position, char in enumerate(sql) if position not in dropped)


def to_spark(sql: str, parameters: Mapping[str, object] | None = None) -> str:
    """Spark SQL for one DuckDB ``select`` (a file of sql/, or a statement compiled from them),
    parameters bound as literals."""
    sqlglot = _sqlglot()
    try:
        statements = [s for s in sqlglot.parse(_len_as_size(_as_written(sql)), read=_dialect())
                      if s is not None]
    except sqlglot.errors.ParseError as exc:
        raise UntranslatableSQL(f"SQLGlot cannot parse the DuckDB text: {str(exc).splitlines()[0]}") from exc
    if len(statements) != 1:
        raise UntranslatableSQL(f"expected one statement; found {len(statements)}")
    tree = statements[0]
    tree = _bind(tree, parameters or {})
    for rewrite in _REWRITES:
        tree = rewrite(tree)
    try:
        return tree.sql(dialect="spark", pretty=True, comments=False,
                        unsupported_level=sqlglot.ErrorLevel.RAISE)
    except sqlglot.errors.UnsupportedError as exc:
        raise UntranslatableSQL(f"SQLGlot cannot write it for Spark: {exc}") from exc


def spark_sql(relative_path: str, parameters: Mapping[str, object] | None = None) -> str:
    """Spark SQL of ``sql/<relative_path>`` (e.g. ``views/rank_gains.sql``)."""
    from pyeval.core import sqlfiles

    return to_spark(sqlfiles.read(relative_path), parameters)
