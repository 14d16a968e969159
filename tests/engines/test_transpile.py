"""The Spark SQL is generated from the DuckDB files by SQLGlot (pyeval/engines/transpile.py), never
hand-copied; the rewrites produce Spark's forms of DuckDB's constructs. No Spark needed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pyeval.core import sqlfiles

sqlglot = pytest.importorskip("sqlglot", reason="sqlglot is not installed (pip install 'pyeval[spark]')")

from pyeval.engines import spark as engine  # noqa: E402
from pyeval.engines import transpile  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPARK_FILES = [f"views/{v}.sql" for v in engine.VIEWS] + [
    f"metrics/metric_{f}.sql" for f in sorted(set(engine.registry.sql_families()) - set(engine.UNSUPPORTED_FAMILIES))
]


def test_no_spark_sql_is_kept_in_the_repository():
    """Nothing to drift: the only SQL files are the DuckDB ones."""
    spark_like = [p for p in ROOT.rglob("*.sql") if "spark" in p.name.lower() or "spark" in p.parent.name.lower()]
    assert spark_like == []
    for path in (ROOT / "pyeval").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "COLLECT_LIST(" not in text, f"{path} holds generated Spark SQL"


@pytest.mark.parametrize("relative", SPARK_FILES)
def test_spark_text_is_generated_from_the_duckdb_file(relative, monkeypatch):
    generated = transpile.spark_sql(relative)
    assert generated == transpile.to_spark(sqlfiles.read(relative))
    assert "$" not in generated and "LIST_" not in generated and "::" not in generated
    # change the DuckDB file and the Spark text follows
    original = sqlfiles.read(relative)
    changed = original.rstrip().rstrip(";") + "\nlimit 7\n"
    monkeypatch.setattr(sqlfiles, "read", lambda path: changed if path == relative else original)
    assert transpile.spark_sql(relative).rstrip().endswith("LIMIT 7")


def test_parameters_are_bound_as_quoted_literals():
    text = transpile.to_spark("select * from t where c = $campaign_id and list_contains($runs, r) and d <= $n",
                              {"campaign_id": "it's", "runs": ["a", "b'c"], "n": 5})
    assert "'it\\'s'" in text or "'it''s'" in text
    assert "ARRAY_CONTAINS(ARRAY('a', 'b" in text and "<= 5" in text
    with pytest.raises(transpile.UntranslatableSQL, match=r"\$missing"):
        transpile.to_spark("select $missing")


@pytest.mark.parametrize("duckdb_sql,spark_fragment", [
    ("select len(l), length(s) from t", "SIZE(l), LENGTH(s)"),
    ("select count(*) filter (where x > 1) over w from t window w as (order by r)",
     "COUNT(CASE WHEN x > 1 THEN 1 END) OVER w"),
    ("select 0.9 * x from t", "CAST(0.9 AS DOUBLE) * x"),
    ("select l[1], l[-1], l[i] from t", "l[0], ELEMENT_AT(l, -1), l[("),
    ("select l[1:k] from t", "SLICE(l, 1, GREATEST(0,"),
    ("select list_transform(l, lambda d, i: d - i) from t", "TRANSFORM(l, (d, i) -> d - ("),
    ("select list_reduce(l, lambda a, b: a + b, 0.0::double) from t", "AGGREGATE(l, CAST(0.0 AS DOUBLE), (a, b) -> a + b)"),
    ("select error('metric_x: bad') from t", "RAISE_ERROR('metric_x: bad')"),
    ("select blended_ratio(1, g, c, i, r) from t", "/"),
    # an index inside a lambda that has its own index; a macro whose body indexes a list
    ("select list_transform(l, lambda x, i: m[i]) from t", "(x, i) -> m[( ( i + 1 ) ) - 1]"),
    ("select repeated_powers(0.5, n) from t", "powers[( SIZE(powers) ) - 1] * ( CAST(0.5 AS DOUBLE) )"),
    ("select list(x order by r desc) from t group by k", "ARRAY_SORT("),
    # Spark's own product aggregate (registered by the engine), also over a window
    ("select product(c) over w from t window w as (order by i rows between unbounded preceding and 1 preceding)",
     "PRODUCT(c) OVER w"),
    ("select product(c) from t group by k", "PRODUCT(c)"),
    # a join DuckDB found lateral by itself (compiled statements print none)
    ("select * from b cross join (select unnest(range(1, len(b.head) + 1)) as i) as ranks", "CROSS JOIN LATERAL ("),
])
def test_rewrites(duckdb_sql, spark_fragment):
    text = " ".join(transpile.to_spark(duckdb_sql).split())
    assert " ".join(spark_fragment.split()) in text


@pytest.mark.parametrize("printed,written", [
    ('select list_filter(l, (lambda r: (r <= "x"))) from t', 'select list_filter(l, lambda r: (r <= "x")) from t'),
    ("select \"error\"(('a (' || k)) from t", "select error(('a (' || k)) from t"),
    ("select count_star() as n, count() over (partition by k) as m from t",
     "select count(*) as n, count(*) over (partition by k) as m from t"),
    ("select * from t where (p = ANY(select p from r)) and q <> ALL (select 1)",
     "select * from t where (p IN (select p from r)) and q NOT IN (select 1)"),
])
def test_duckdb_printed_forms_are_read_as_the_files_write_them(printed, written):
    """The compiled statements are DuckDB's printing of the files (pyeval/core/compile.py):
    the forms SQLGlot does not read are written back as the files write them."""
    assert transpile._as_written(printed) == written


#: DuckDB 2.0.1's and DuckDB 1.5.6's printing (json_deserialize_sql(json_serialize_sql(...)), as
#: pyeval/core/compile.py prints its statements; 1.4.5 prints as 1.5.6) of
#: select list_transform(list_filter(l, lambda d: d.rank <= k), lambda d: d.gain) as a,
#:   list_transform(l, lambda x, i: case when x > i then trim(s) else 'x' end) as b,
#:   list_reduce(l, lambda total, term: total + term, 0.0) as c,
#:   list_transform(l, lambda k: {'rank': k, 'gain': list_sum(list_transform(m, lambda y: y * k))}) as e,
#:   list_transform(l, lambda x: 'a') as f from t
PRINTED_2_0 = (
    "SELECT list_transform(list_filter(l, (lambda d: (d.rank <= k))), (lambda d: d.gain)) AS a, "
    "list_transform(l, (lambda x, i: CASE  WHEN ((x > i)) THEN (\"trim\"(s)) ELSE 'x' END)) AS b, "
    "list_reduce(l, (lambda total, term: (total + term)), 0.0) AS c, "
    "list_transform(l, (lambda k: struct_pack(rank := k, gain := list_sum(list_transform(m, (lambda y: (y * k))))))) "
    "AS e, list_transform(l, (lambda x: 'a')) AS f FROM t")
PRINTED_1_5 = (
    "SELECT list_transform(list_filter(l, (d -> (d.rank <= k))), (d -> d.gain)) AS a, "
    "list_transform(l, (\"row\"(x, i) -> CASE  WHEN ((x > i)) THEN (main.\"trim\"(s)) ELSE 'x' END)) AS b, "
    "list_reduce(l, (\"row\"(total, term) -> (total + term)), 0.0) AS c, "
    "list_transform(l, (k -> main.struct_pack(rank := k, gain := list_sum(list_transform(m, (y -> (y * k))))))) AS e, "
    "list_transform(l, (x -> 'a')) AS f FROM t")


@pytest.fixture
def duckdb_1x(monkeypatch):
    """The translation as it runs where DuckDB before 2.0 is installed (its printing read)."""
    from pyeval.core import duckdb_trees

    monkeypatch.setattr(duckdb_trees, "BEFORE_2", True)


def test_duckdb_1x_printing_gives_the_spark_sql_of_2_0s(duckdb_1x):
    """DuckDB before 2.0 prints a lambda as ``(x -> body)`` (``("row"(x, i) -> body)``), which
    SQLGlot's DuckDB dialect reads as JSON extraction, and the functions its parser makes as
    ``main."trim"``, ``main.struct_pack``, which SQLGlot passes through as a user's functions:
    the same statement gives the same Spark SQL from either printing."""
    spark = transpile.to_spark(PRINTED_2_0)
    assert transpile.to_spark(PRINTED_1_5) == spark
    flat = " ".join(spark.split())
    for fragment in ("FILTER(l, d -> ( d.rank <= k ))", "d -> d.gain",
                     "(x, i) -> CASE WHEN ( ( x > ( i + 1 ) ) ) THEN ( TRIM(s) )", "(total, term) -> ( total + term )",
                     "k -> STRUCT( k AS rank,", "TRANSFORM(m, y -> ( y * k ))", "TRANSFORM(l, x -> 'a')"):
        assert fragment in flat, fragment


@pytest.mark.parametrize("printed,spark_fragment", [
    # the body is one whole expression (SQLGlot's arrow operator takes a term; a literal a JSON path)
    ("select list_filter(l, (r -> r.gain > 0 and r.rank <= k)) from t", "FILTER(l, r -> r.gain > 0 AND r.rank <= k)"),
    ("select list_transform(l, (x -> '$.a')) from t", "TRANSFORM(l, x -> '$.a')"),
    ("select list_transform(l, (\"row\"(x, i) -> x[i])) from t", "TRANSFORM(l, (x, i) -> x[( ( i + 1 ) ) - 1])"),
    ("select main.struct_pack(a := 1, b := x), main.\"trim\"(s), main.\"lower\"(s) from t",
     "STRUCT(1 AS a, x AS b), TRIM(s), LOWER(s)"),
    # a lambda written with an arrow: 1.x prints its parameters as main."row"(a, b)
    ("select list_reduce(l, (main.\"row\"(a, b) -> (a + b)), 0) from t", "AGGREGATE(l, 0, (a, b) -> ( a + b ))"),
    # a function of DuckDB's, qualified, whose call SQLGlot cannot make from its arguments alone
    ("select coalesce(l, main.list_value()) from t", "COALESCE(l, ARRAY())"),
    # a parenthesised argument that is no lambda, an arrow that does not end the argument, and the
    # arrow outside a function's arguments, as before
    ("select f((a), (b + 1)), (j -> '$.a') from t", "F(( a ), ( b + 1 )), ( GET_JSON_OBJECT(j, '$.a') )"),
    ("select f((j -> 'a') = 'b') from t", "F(( GET_JSON_OBJECT(j, '$.a') ) = 'b')"),
])
def test_duckdb_1x_lambdas_and_qualified_functions(duckdb_1x, printed, spark_fragment):
    assert " ".join(spark_fragment.split()) in " ".join(transpile.to_spark(printed).split())


def test_duckdb_2_0s_arrows_stay_json_extraction():
    """DuckDB 2.0 prints lambdas with ``lambda``: there, an arrow in a function's arguments is the
    JSON extraction it always was."""
    from pyeval.core import duckdb_trees

    if duckdb_trees.BEFORE_2:
        pytest.skip("DuckDB before 2.0 reads the arrow as a lambda")
    spark = " ".join(transpile.to_spark("select lower((j -> '$.a')), list_transform(l, (x -> 'a')) from t").split())
    assert "LOWER(( GET_JSON_OBJECT(j, '$.a') ))" in spark and "GET_JSON_OBJECT(x, '$.a')" in spark


def test_an_unfinished_arrow_lambda_is_refused(duckdb_1x):
    with pytest.raises(transpile.UntranslatableSQL, match="cannot parse"):
        transpile.to_spark("select list_transform(l, (x -> x + 1 x) from t")


def test_every_family_compiled_for_each_kind_is_translated():
    """Spark runs the compiled statement of every family it supports, for each kind alone and
    all together (the plan's family steps carry them)."""
    from pyeval.core import compile
    from pyeval.measures.registry import definitions

    kinds: dict[str, set[str]] = {}
    for definition in definitions():
        kinds.setdefault(definition.family, set()).add(definition.kind or definition.name)
    for family in sorted(set(engine.registry.sql_families()) - set(engine.UNSUPPORTED_FAMILIES)):
        for chosen in [kinds[family], *({kind} for kind in sorted(kinds[family]))]:
            text = transpile.to_spark(compile.family(family, frozenset(chosen)))
            assert "ANY (" not in text and "lambda" not in text.lower() and "COUNT_STAR" not in text, (family, chosen)
            # DuckDB 1.x's printing: lambdas as arrows (not JSON extraction), main.-qualified functions
            assert not re.search(r"GET_JSON_OBJECT|\bROW\(|\bmain\.", text, re.IGNORECASE), (family, chosen)
            assert not re.search(r"COUNT\(\s*\)", text), (family, chosen)
            # an array collected per row of a window (a fold over it per row: quadratic in the list)
            assert not re.search(r"COLLECT_LIST\([^()]*\)\s+OVER", text), (family, chosen)


def test_untranslatable_constructs_are_reported():
    with pytest.raises(transpile.UntranslatableSQL, match="list_zip"):
        transpile.to_spark("select list_zip(a, b) from t")
