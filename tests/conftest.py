"""Shared fixtures: a fresh warehouse, the fixture folder, a whole-warehouse snapshot, and the
demo warehouse (built once per test session)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

import pyeval
from pyeval.core.duckdb_trees import BEFORE_2

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: The warehouse files older pyevals wrote (fixtures/archive, DuckDB 2.0's format) as the installed
#: DuckDB reads them: before 2.0, their copies in DuckDB 1.1's format (archive/make_storage_v1_1.py).
ARCHIVE = FIXTURES / "archive" / "storage-v1.1" if BEFORE_2 else FIXTURES / "archive"
#: For the tests that a command imports no pandas, pyarrow or numpy: before 2.0, DuckDB's module
#: imports all three itself when it binds a Python parameter (checked on 1.4.5 and 1.5.6), so a
#: command may import these and no more.
IMPORTED_BY_DUCKDB = frozenset({"numpy", "pandas", "pyarrow"} if BEFORE_2 else ())


def is_exact_mean(mean: float, values) -> bool:
    """Whether ``mean`` is what sql/evaluation/means.sql gives for ``values`` on the installed
    DuckDB: statistics.mean's value (the exact mean rounded once), where DuckDB's ``fsum`` sums
    exactly (2.0); before 2.0 ``fsum`` is Kahan's compensated sum, whose error is at most about
    2u times the sum of the magnitudes (Higham, *Accuracy and Stability of Numerical Algorithms*,
    2002, 4.3), so the mean is within that of it over the number of values, and an ulp
    (docs/measures.md, "combining topics")."""
    import math
    import statistics

    values = [float(value) for value in values]
    exact = statistics.mean(values)
    if not BEFORE_2:
        return mean == exact
    spread = math.fsum(abs(value - exact) for value in values) / len(values)
    return abs(mean - exact) <= 2.0 ** -51 * spread + math.ulp(exact)
ENGINE_TESTS = Path(__file__).resolve().parent / "engines"


def pytest_configure(config):
    """The compile cache (pyeval/core/compile.py) in a folder of this session, not the user's
    (subprocesses inherit it): every test session compiles afresh."""
    import os
    import tempfile

    os.environ.setdefault("PYEVAL_CACHE_DIR", tempfile.mkdtemp(prefix="pyeval-tests-cache-"))


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    """Every test under tests/engines (Spark, Ray, the Spark SQL transpiler) is marked
    ``engines``, every test reading the demo warehouse ``slow``: deselected by default
    (pyproject.toml's addopts), run by ``python -m pytest -m "engines or slow"`` and by .ci/run."""
    for item in items:
        if ENGINE_TESTS in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.engines)
        if "demo_build" in getattr(item, "fixturenames", ()):  # `pyeval demo` end to end (minutes)
            item.add_marker(pytest.mark.slow)
    if config.pluginmanager.hasplugin("xdist"):  # pytest -n auto --dist loadgroup (README, .ci/run)
        for item in items:
            group = _worker_group(item)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))


def _worker_group(item) -> str | None:
    """The tests that must share one xdist worker so that an expensive fixture is made once:
    every reader of the demo warehouse (session-scoped, `pyeval demo` end to end), and each
    module with a module-scoped fixture (a loaded campaign, a PostgreSQL server) or under
    tests/engines (a Spark session, a Ray cluster). Other tests go wherever a worker is free."""
    fixture_definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    if "demo_build" in fixture_definitions:
        return "demo"
    if ENGINE_TESTS in Path(str(item.fspath)).parents:  # one JVM, one Ray cluster per module
        return item.nodeid.split("::")[0]
    if any(definitions and definitions[-1].scope == "module" for definitions in fixture_definitions.values()):
        return item.nodeid.split("::")[0]
    return None


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def warehouse_template(tmp_path_factory) -> Path:
    """An empty warehouse file made once per session by ``pyeval.connect`` (migrations, views,
    the measure catalogue and the descriptions: ~1 s of CPU), for :func:`con` to copy."""
    path = tmp_path_factory.mktemp("template") / "empty.duckdb"
    pyeval.connect(path).close()
    return path


@pytest.fixture
def con(warehouse_template):
    """A fresh in-memory warehouse with migrations and views applied: a copy of the session's
    empty warehouse (``COPY FROM DATABASE``: tables, views, comments, rows), which
    ``pyeval.storage.warehouse.migrate`` then finds current (it would upgrade it otherwise, and the
    assertion says so). Ten times cheaper than ``pyeval.connect()`` for each test."""
    from pyeval.storage import compat, warehouse

    connection = warehouse._connect(":memory:", False, {})
    try:
        target, parameters = compat.attached_file(str(warehouse_template))
        connection.execute(f"attach {target} as pyeval_template (read_only)", parameters)
        connection.execute("copy from database pyeval_template to memory")
        connection.execute("detach pyeval_template")
        assert warehouse.migrate(connection) == [], "the template warehouse is not current"
    except BaseException:
        connection.close()
        raise
    yield connection
    connection.close()


@pytest.fixture
def write(tmp_path):
    """Write a small input file (str or bytes) and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return _write


def snapshot(con) -> dict[str, list[tuple]]:
    """Every row of every stored table, sorted: equal snapshots mean an unchanged warehouse."""
    tables = con.execute(
        "select schema_name, table_name from duckdb_tables() where not temporary "
        "and database_name = current_database() order by table_name"
    ).fetchall()
    return {table: sorted(con.execute(f"select * from {schema}.{table}").fetchall(), key=repr)
            for schema, table in tables}


def read_path(reader, *arguments):
    """What a loader's reader (runs.read_one, qrels.read_one) makes of a source, in a
    throwaway connection: ``.typed`` tells whether the fast path took it."""
    import duckdb

    from pyeval.loaders.staging import TemporaryRelations

    with duckdb.connect() as scratch, TemporaryRelations(scratch) as relations:
        return reader(*arguments, relations)


@pytest.fixture(scope="module")
def postgres_url():
    """A throwaway PostgreSQL server for the module's tests (tests/postgres_server.py); the tests
    are skipped, saying why, where none can start."""
    from .postgres_server import NoServer, postgres_server

    try:
        with postgres_server() as url:
            yield url
    except NoServer as exc:
        pytest.skip(f"no PostgreSQL server could be started: {exc}")


@dataclass(frozen=True)
class DemoBuild:
    """The demo warehouse of the session and what `pyeval demo` printed while building it."""

    path: Path
    output: str


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> DemoBuild:
    """`pyeval demo` run once for the whole session (it takes a while): tests that read it, or add
    their own results to it, share this warehouse; none may remove what the demo stored."""
    from pyeval.demo import run_demo

    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    lines: list[str] = []
    run_demo(path, echo=lines.append, progress=False)
    return DemoBuild(path, "\n".join(lines))
