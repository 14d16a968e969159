"""The SQL compiler (pyeval/core/compile.py): a statement compiled for a request gives what the
files of sql/ give as they are, bit for bit, and holds only what the requested measures read."""
from __future__ import annotations

import math
import random

import duckdb
import pytest

from pyeval.core import compile
from pyeval.errors import MeasureParamError


def _rows(con, text: str) -> list[tuple]:
    return sorted(con.execute(text).fetchall(), key=repr)


@pytest.fixture()
def con():
    con = duckdb.connect()
    con.execute("create table t as select * from (values (1, 'a', 2.0), (1, 'b', 3.0), (2, 'c', 5.0)) v(k, name, x)")
    yield con
    con.close()


def test_dead_items_and_tables_go_and_the_rows_stay(con):
    text = """
        with unused as (select k from t),
        wide as (select k, name, x * 2 as doubled, x + 1 as unread from t),
        summed as (select k, sum(doubled) as total, count(*) as n from wide group by k)
        select k, total from summed"""
    pruned = compile.prune(text)
    assert "unused" not in pruned and "unread" not in pruned and "count_star" not in pruned
    assert _rows(con, pruned) == _rows(con, text)


def test_what_changes_rows_is_kept(con):
    """unnest, error(), an aggregate of a query without group by, distinct and set operations
    keep their items even when nothing reads them by name."""
    text = """
        with expanded as (select k, unnest([1, 2]) as copy from t),
        one_row as (select count(*) as n, max(x) as top from t),
        different as (select distinct k, name from t),
        both_sides as (select k, name from t union all select k, name from t),
        checked as (select k, case when x < 0 then error('negative') end as guard from t)
        select (select count(*) from expanded) as a, (select n from one_row) as b,
               (select count(*) from different) as c, (select count(*) from both_sides) as d,
               (select count(*) from checked) as e"""
    pruned = compile.prune(text)
    for kept in ("unnest", "max(x)", 'DISTINCT k, "name"', "UNION ALL", "error"):
        assert kept in pruned, kept
    assert _rows(con, pruned) == _rows(con, text) == [(6, 3, 3, 6, 3)]


def test_a_left_join_goes_only_when_it_gives_one_row_and_no_column(con):
    unique = """
        with keys as (select k from t group by k), extra as (select k, max(x) as top from t group by k)
        select keys.k from keys left join extra on keys.k = extra.k"""
    assert "extra" not in compile.prune(unique)
    assert _rows(con, compile.prune(unique)) == _rows(con, unique)
    repeated = """
        with keys as (select k from t group by k), extra as (select k, x from t)
        select keys.k from keys left join extra on keys.k = extra.k"""
    assert "LEFT JOIN extra" in compile.prune(repeated)  # k repeats in extra: the join makes rows
    assert _rows(con, compile.prune(repeated)) == _rows(con, repeated) == [(1,), (1,), (2,)]


def test_a_struct_keeps_the_fields_read(con):
    text = """
        with lists as (select k, list({'x': x, 'name': name, 'unread': x * 3} order by x) as items from t group by k)
        select k, list_transform(items, lambda item: item.x) as xs from lists"""
    pruned = compile.prune(text)
    assert "unread" not in pruned and "name :=" not in pruned
    assert _rows(con, pruned) == _rows(con, text)


def test_a_lateral_subquery_reads_the_relations_beside_it(con):
    text = """
        with heads as (select k, list(x) as head from t group by k)
        select heads.k, positions.i from heads cross join (select unnest(range(1, len(heads.head) + 1)) as i) as positions"""
    assert _rows(con, compile.prune(text)) == _rows(con, text)


def test_a_renamed_table_is_read_under_its_name(con):
    """``x as (select * from t)`` (how an engine binds a stage made once to the stage's name)
    becomes ``from t as x``; not when t is itself a common table expression, which could be
    shadowed where x is read."""
    text = """
        with renamed as (select * from t),
        summed as (select renamed.k, sum(renamed.x) as total from renamed group by renamed.k)
        select summed.k, summed.total, other.name from summed join renamed as other on other.k = summed.k"""
    pruned = compile.prune(text)
    assert "renamed AS" not in pruned and "FROM t AS renamed" in pruned and "t AS other" in pruned
    assert _rows(con, pruned) == _rows(con, text)
    shadowed = """
        with base as (select k, x from t), renamed as (select * from base),
        inner_scope as (with base as (select 0 as k, 0.0 as x) select * from renamed)
        select k, x from inner_scope"""
    assert "renamed AS" in compile.prune(shadowed)
    assert _rows(con, compile.prune(shadowed)) == _rows(con, shadowed)


def test_a_query_that_only_wraps_a_subquery_is_the_subquery(con):
    text = """
        with outer_part as (select k, x from t)
        select * from (with inner_part as (select k, sum(x) as total from outer_part group by k)
                       select k, total from inner_part order by k)"""
    pruned = compile.prune(text)
    assert "FROM (" not in pruned
    assert con.execute(pruned).fetchall() == con.execute(text).fetchall() == [(1, 5.0), (2, 5.0)]
    filtered = "select * from (select k, x from t) where x > 2"  # a clause: kept
    assert "FROM (" in compile.prune(filtered)
    assert _rows(con, compile.prune(filtered)) == _rows(con, filtered)


def test_split_makes_once_what_reads_no_changing_relation(con):
    """compile.split (the resident engine's prepared plans): the common table expressions that
    read no per-call relation are made once, also inside a query that only wraps them (a
    family's SQL given its requested_measures, pyeval.core.stages.pass_relations)."""
    con.execute("create table runs as select 1 as k, 10.0 as score union all select 2, 20.0")
    text = """
        with requested as (select * from t)
        select * from (
            with per_key as (select k, sum(x) as total from requested group by k),
                 scored as (select runs.k, runs.score * per_key.total as value from runs join per_key using (k))
            select k, value from scored)"""
    once, rest = compile.split(text, {"runs"})
    assert [name for name, _ in once] == ["per_key"]
    con.execute("create temp table per_key as " + once[0][1])
    assert _rows(con, rest) == _rows(con, text) == [(1, 50.0), (2, 100.0)]


def test_kinds_decide_the_dispatch():
    """The precision family compiled for P holds no other kind's formula nor what only they read."""
    compiled = compile.family("precision", frozenset({"P"}))
    assert "set_precision AS" not in compiled and "rank_sum_within_depth" not in compiled
    assert "relevant_within_depth / depth" in compiled.replace("(", "").replace(")", "")
    assert compile.reads(compiled) == {"evaluation_pairs", "evaluation_ranks", "evaluation_topics",
                                       "requested_measures"}
    assert "evaluation_gain_maxima" in compile.reads(
        compile.layout(compile.render(compile.parse(compile.sqlfiles.read("metrics/metric_dcg.sql")))))
    assert "evaluation_gain_maxima" not in compile.reads(compile.family("dcg", frozenset({"nDCG"})))


def test_a_kind_the_family_names_nowhere_is_refused_as_the_family_refuses_it():
    with pytest.raises(MeasureParamError, match="^metric_precision: no formula for measure kind Foo$"):
        compile.family("precision", frozenset({"P", "Foo"}))
    assert compile.family("intent_average", frozenset({"IA_nDCG"}))  # starts_with(kind, 'IA_')


def test_every_family_compiled_gives_what_its_file_gives():
    """Every ad hoc SQL measure of the registry, alone and with its family: the plan's compiled
    statements (stages pruned to what they read) give the values of the files run as they are
    with every stage, bit for bit (graded qrels with -2 levels, tied scores, a missing topic)."""
    from pyeval import interop
    from pyeval.core.evaluation import resolve
    from pyeval.core.plan import ADHOC_STAGING, Step, execute, plan, stage_steps
    from pyeval.core.request import EvaluationRequest
    from pyeval.core.stages import DuckDBExecutor, drop_tables
    from pyeval.measures import make, registry
    from pyeval.measures.registry import definitions

    rng = random.Random(39)
    qrels = {f"T{t}": {f"D{d}": rng.choice([-2, 0, 0, 1, 2, 3]) for d in rng.sample(range(40), 15)} for t in range(6)}
    run = {f"T{t}": {f"D{d}": float(rng.choice([0.5, 1.0, 1.5, 2.0])) for d in rng.sample(range(40), rng.randint(1, 25))}
           for t in range(5)}
    measures = [make(d, **{p.name: (0.5 if p.type is float else 5 if p.type is int else p.default)
                           for p in d.params if p.required})
                for d in definitions()
                if d.staging == "adhoc" and d.storable and registry.driver(d.family) is None and d.family != "preferences"]
    engine = interop.resident_engine(qrels)
    try:
        engine._load({interop.RUN: interop.run_table(run)}, {interop.RUN: "<run>"})  # the run stored
        engine._make_all_relations()  # every stage of the ad hoc staging can be made
        con = engine.con
        executor = DuckDBExecutor(con)
        families: dict[str, list] = {}
        for measure in measures:
            families.setdefault(measure.family, []).append(measure)
        same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))  # noqa: E731
        for asked in [[m] for m in measures] + list(families.values()):
            request = resolve(con, EvaluationRequest(interop.CAMPAIGN, tuple(asked), ordering="trec"))
            executor.open_values()
            execute(plan(request), executor)
            compiled = executor.take_values().sort_values(["run_id", "topic_id", "measure"])
            executor.open_values()
            stages = stage_steps(ADHOC_STAGING, request.stage_parameters())
            try:
                for step in stages:
                    executor.macros(step) if step.kind == "macros" else executor.stage(step)
                executor.family(Step("family", f"metrics/metric_{asked[0].family}.sql", "evaluation_values",
                                     measures=tuple(asked)))  # sql None: the file as it is
            finally:
                drop_tables(con, [step.produces for step in stages if step.kind == "stage"])
            files = executor.take_values().sort_values(["run_id", "topic_id", "measure"])
            assert list(compiled["topic_id"]) == list(files["topic_id"]), asked
            assert all(same(a, b) for a, b in zip(compiled["value"], files["value"])), asked
    finally:
        engine.close()


def test_the_compile_cache_keeps_what_was_compiled(tmp_path, monkeypatch):
    """A statement compiled in one process is read back, not recompiled, in the next (the
    cache folder of PYEVAL_CACHE_DIR); ``none`` turns the cache off; a damaged entry is
    compiled again."""
    monkeypatch.setenv("PYEVAL_CACHE_DIR", str(tmp_path))
    compile.family.cache_clear()
    first = compile.family("precision", frozenset({"R"}))
    entries = list((tmp_path / "compiled").glob("*.json"))
    assert len(entries) == 1
    calls = []
    monkeypatch.setattr(compile, "_dead_code", lambda *args: calls.append(args))
    compile.family.cache_clear()
    assert compile.family("precision", frozenset({"R"})) == first and not calls  # read, not compiled
    entries[0].write_text("{not json")
    compile.family.cache_clear()
    compile.family("precision", frozenset({"R"}))
    assert calls  # compiled again
    monkeypatch.setenv("PYEVAL_CACHE_DIR", "none")
    assert compile.cache_folder() is None
    compile.family.cache_clear()
