"""Check the dashboard recipes of docs/bi.md in a real Apache Superset (not part of the tests).

    python tools/superset_check.py [--venv DIR] [--port 8188] [--keep]

1. Makes Superset's own virtual environment (default ``~/.cache/pyeval-superset/venv``) if it
   is missing, with exactly the packages docs/bi.md names (:data:`SUPERSET_PACKAGES`).
2. Builds a small warehouse with this checkout's pyeval (trec_eval's test files: two runs, one
   tagged ``baseline``, AP, P@10 and NumRet(rel=1), a t test), writes a snapshot of it and
   publishes it to a throwaway PostgreSQL server (tests/postgres_server.py) with
   ``--grant-select dashboard``, a read-only role.
3. Starts Superset on 127.0.0.1 (its metadata in a database of the same PostgreSQL server), and
   through its REST API
   registers each route (the snapshot through the URL ``pyeval url`` prints; PostgreSQL as the
   read-only role), creates datasets on ``scores`` and ``leaderboard``, runs chart-data queries
   (mean AP per run over ``scores``; NumRet(rel=1) per run from ``leaderboard``) and checks the
   numbers equal what ``pyeval sql`` gives on the warehouse.

Prints the versions and one line per check; exit status 0 when every check passed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "trec_eval"

#: Superset's environment, as docs/bi.md gives it: Superset 6 pins SQLAlchemy < 2, so the DuckDB
#: dialect is duckdb-engine 0.17 (duckdb-sqlalchemy needs SQLAlchemy 2); the [duckdb] extra brings
#: DuckDB 1.5 (it reads `pyeval snapshot --for superset`), the [postgres] extra psycopg2. flask-caching 2.4+ passes an argument Superset 6.1's cache class refuses,
#: and 6.1 imports rich (its CLI) and cachetools (its engine specs) without declaring them.
SUPERSET_PACKAGES = (
    "apache-superset[postgres,duckdb]==6.1.0",
    "duckdb-engine==0.17.0",
    "sqlalchemy>=1.4,<2",
    "flask-caching==2.3.1",
    "rich",
    "cachetools",
)
ADMIN = ("admin", "admin-pass-local-only")
READER = ("dashboard", "dashboard-pass-local-only")


def pyeval(db: Path, *arguments: str) -> str:
    """Run this checkout's ``pyeval`` CLI; its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pyeval.cli", "--db", str(db), *arguments],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"pyeval {' '.join(arguments)} failed: {done.stderr or done.stdout}")
    return done.stdout


def pyeval_rows(db: Path, query: str) -> list[dict]:
    return json.loads(pyeval(db, "sql", "--format", "json", query))


def make_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not (venv / "bin" / "superset").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *SUPERSET_PACKAGES], check=True)
    return python


def versions(python: Path) -> dict[str, str]:
    code = ("import importlib.metadata as m, json; print(json.dumps({p: m.version(p) for p in "
            "['apache-superset', 'duckdb', 'duckdb-engine', 'SQLAlchemy', 'psycopg2-binary', 'flask-caching']}))")
    return json.loads(subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout)


def build_warehouse(folder: Path) -> Path:
    db = folder / "work.duckdb"
    pyeval(db, "load", "qrels", "-C", "trec6", str(FIXTURES / "qrels.test"))
    pyeval(db, "load", "run", "-C", "trec6", "--name", "bm25", "--system", "bm25", "--date", "2024-03-01",
           "--tag", "baseline", str(FIXTURES / "results.test"))
    pyeval(db, "load", "run", "-C", "trec6", "--name", "short", "--system", "short", "--date", "2024-04-01",
           "--tag", "production", str(FIXTURES / "results.trunc"))
    pyeval(db, "evaluate", "-C", "trec6", "-m", "AP", "-m", "P@10", "-m", "NumRet(rel=1)")
    pyeval(db, "compare", "-C", "trec6", "-m", "AP", "--test", "t")
    return db


class Superset:
    """A Superset server on 127.0.0.1 and a logged-in REST session."""

    def __init__(self, python: Path, home: Path, port: int, metadata_uri: str):
        self.base = f"http://127.0.0.1:{port}"
        config = home / "superset_config.py"
        config.write_text(
            f"SECRET_KEY = 'pyeval-superset-check-local-only-0123456789abcdef'\n"
            f"SQLALCHEMY_DATABASE_URI = {metadata_uri!r}\n"
            "WTF_CSRF_ENABLED = False\n"
            "FEATURE_FLAGS = {}\n"
        )
        self.env = {**os.environ, "SUPERSET_CONFIG_PATH": str(config), "SUPERSET_HOME": str(home),
                    "FLASK_APP": "superset"}
        superset = str(python.parent / "superset")
        for step in (["db", "upgrade"],
                     ["fab", "create-admin", "--username", ADMIN[0], "--firstname", "a", "--lastname", "b",
                      "--email", "admin@localhost", "--password", ADMIN[1]],
                     ["init"]):
            subprocess.run([superset, *step], env=self.env, check=True, capture_output=True)
        self.log = open(home / "server.log", "w")
        self.process = subprocess.Popen([superset, "run", "-h", "127.0.0.1", "-p", str(port), "--with-threads"],
                                        env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.base + "/health", timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(2)
        else:
            raise SystemExit(f"Superset did not start; see {home / 'server.log'}")
        token = self.call("POST", "/api/v1/security/login",
                          {"username": ADMIN[0], "password": ADMIN[1], "provider": "db", "refresh": True})
        self.token = token["access_token"]

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        if getattr(self, "token", None):
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise SystemExit(f"{method} {path}: HTTP {exc.code}: {exc.read().decode()[:800]}") from None

    def rename_database_file(self, database: int, uri: str) -> None:
        """Point a registered database at another URI (what *Edit database* does)."""
        self.call("PUT", f"/api/v1/database/{database}", {"sqlalchemy_uri": uri})

    def sql_dataset(self, database: int, name: str, sql: str) -> int:
        """A virtual dataset (SQL Lab's *Save dataset*): SQL that names relations unqualified."""
        return self.call("POST", "/api/v1/dataset/", {"database": database, "table_name": name, "sql": sql,
                                                      "schema": None})["id"]

    def database(self, name: str, uri: str) -> int:
        self.call("POST", "/api/v1/database/test_connection/", {"database_name": name, "sqlalchemy_uri": uri})
        return self.call("POST", "/api/v1/database/", {"database_name": name, "sqlalchemy_uri": uri})["id"]

    def dataset(self, database: int, schema: str, table: str) -> int:
        return self.call("POST", "/api/v1/dataset/", {"database": database, "schema": schema, "table_name": table})["id"]

    def chart_data(self, dataset: int, columns: list[str], metric_sql: str, filters: list[dict]) -> list[dict]:
        """A chart's query (what an *Table* chart with these dimensions and metric asks)."""
        body = {
            "datasource": {"id": dataset, "type": "table"},
            "queries": [{
                "columns": columns,
                "metrics": [{"expressionType": "SQL", "sqlExpression": metric_sql, "label": "metric"}],
                "filters": filters, "row_limit": 1000, "orderby": [],
            }],
            "result_format": "json", "result_type": "full",
        }
        return self.call("POST", "/api/v1/chart/data", body)["result"][0]["data"]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def check_rename(superset: Superset, db: Path, snapshot: Path) -> list[str]:
    """Datasets built on schema ``main`` or as SQL keep working when the snapshot file is renamed
    (the catalog DuckDB names after the file changes); one on ``<file stem>.main`` (what
    Superset's dataset form lists) does not."""
    results = []
    database = superset.database("pyeval snapshot, renamed later", pyeval(snapshot, "url").strip())
    schemas = superset.call("GET", f"/api/v1/database/{database}/schemas/")["result"]
    results.append(f"INFO schemas Superset's dataset form lists for {snapshot.name}: {schemas}")
    query = urllib.parse.quote(f"(schema_name:'{snapshot.stem}.main',force:!t)")
    listed = {row["value"] for row in superset.call("GET", f"/api/v1/database/{database}/tables/?q={query}")["result"]}
    sys.path.insert(0, str(ROOT))
    from pyeval.storage.public import PUBLIC_TABLES, PUBLIC_VIEWS

    public = set(PUBLIC_TABLES) | set(PUBLIC_VIEWS)
    results.append(f"{'PASS' if listed == public else 'FAIL'} the dataset form lists {len(listed)} tables and views "
                   f"in {snapshot.stem}.main, the public API's {len(public)}"
                   + ("" if listed == public else f" (others {sorted(listed - public)}, missing {sorted(public - listed)})"))
    on_main = superset.dataset(database, "main", "leaderboard")
    on_catalog = superset.dataset(database, f"{snapshot.stem}.main", "leaderboard")
    as_sql = superset.sql_dataset(database, "leaderboard_sql", "select * from leaderboard")
    renamed = snapshot.rename(snapshot.with_name("renamed-dash.duckdb"))
    superset.rename_database_file(database, pyeval(renamed, "url").strip())
    ours = pyeval_rows(db, "select run_id, value from leaderboard where measure = 'NumRet(rel=1)'")
    want = {row["run_id"]: row["value"] for row in ours}
    for label, dataset in (("schema main", on_main), ("SQL dataset", as_sql)):
        chart = superset.chart_data(dataset, ["run_id"], "MAX(value)",
                                    [{"col": "measure", "op": "==", "val": "NumRet(rel=1)"}])
        got = {row["run_id"]: row["metric"] for row in chart}
        results.append(f"{'PASS' if got == want else 'FAIL'} after renaming the snapshot, a dataset on {label} "
                       f"still reads leaderboard: {got}")
    try:
        superset.chart_data(on_catalog, ["run_id"], "MAX(value)", [])
        results.append(f"INFO a dataset on schema {snapshot.stem}.main still reads after the rename")
    except SystemExit as exc:  # Superset answers with an error: the catalog is gone
        results.append(f"INFO a dataset on schema {snapshot.stem}.main breaks after the rename: {str(exc)[:160]}")
    return results


def check_route(superset: Superset, db: Path, name: str, uri: str, schema: str) -> list[str]:
    """Register ``uri``, make the two datasets, and compare two chart queries with pyeval sql."""
    results = []
    database = superset.database(name, uri)
    scores = superset.dataset(database, schema, "scores")
    leaderboard = superset.dataset(database, schema, "leaderboard")
    chart = superset.chart_data(scores, ["run_id"], "AVG(value)", [{"col": "measure", "op": "==", "val": "AP"}])
    # every digit of pyeval's double (its printed tables round to 10), as text
    ours = pyeval_rows(db, "select run_id, cast(avg(value) as varchar) as metric from scores "
                           "where measure = 'AP' group by run_id")
    got = {row["run_id"]: row["metric"] for row in chart}
    want = {row["run_id"]: float(row["metric"]) for row in ours}
    ok = got.keys() == want.keys() and all(abs(got[k] - want[k]) <= 1e-15 for k in want)
    results.append(f"{'PASS' if ok else 'FAIL'} {name}: scores, mean AP per run: superset {got} pyeval {want}")
    chart = superset.chart_data(leaderboard, ["run_id", "versus_baseline"], "MAX(value)",
                                [{"col": "measure", "op": "==", "val": "NumRet(rel=1)"}])
    ours = pyeval_rows(db, "select run_id, value from leaderboard where measure = 'NumRet(rel=1)'")
    got = {row["run_id"]: row["metric"] for row in chart}
    want = {row["run_id"]: row["value"] for row in ours}
    ok = got == want
    results.append(f"{'PASS' if ok else 'FAIL'} {name}: leaderboard, NumRet(rel=1) per run (a sum over "
                   f"topics): superset {got} pyeval {want}")
    # the descriptions (COMMENT ON) reach Superset: SQL Lab's table metadata shows them
    metadata = superset.call("GET", f"/api/v1/database/{database}/table_metadata/?name=scores&schema={schema}")
    comment = metadata.get("comment") or ""
    value = next((c.get("comment") for c in metadata.get("columns", []) if c.get("name") == "value"), None)
    ok = comment.startswith("The public per-topic results") and value == "the per-topic value"
    results.append(f"{'PASS' if ok else 'FAIL'} {name}: scores' description in Superset: {comment[:40]!r}..., "
                   f"column value: {value!r}")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path.home() / ".cache" / "pyeval-superset" / "venv")
    parser.add_argument("--port", type=int, default=8188)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    options = parser.parse_args()
    python = make_venv(options.venv)
    print("versions:", json.dumps(versions(python)))
    folder = Path(tempfile.mkdtemp(prefix="pyeval-superset-"))
    results: list[str] = []
    sys.path.insert(0, str(ROOT))
    from tests.postgres_server import postgres_server

    try:
        db = build_warehouse(folder)
        snapshot = folder / "dash.duckdb"
        print(pyeval(db, "snapshot", "--for", "superset", str(snapshot)).strip())
        second = folder / "dash2.duckdb"
        pyeval(db, "snapshot", "--for", "superset", str(second))
        url = pyeval(snapshot, "url").strip()
        with postgres_server() as admin_url:
            import sqlalchemy as sa

            engine = sa.create_engine(admin_url.replace("postgresql://", "postgresql+psycopg://", 1))
            with engine.begin() as pg:
                pg.exec_driver_sql(f"create role {READER[0]} login password '{READER[1]}'")
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as pg:
                pg.exec_driver_sql("create database superset_metadata")
            engine.dispose()
            print(pyeval(db, "publish", "--grant-select", READER[0], admin_url).strip())
            parsed = sa.engine.make_url(admin_url)
            reader_uri = parsed.set(drivername="postgresql+psycopg2", username=READER[0],
                                    password=READER[1]).render_as_string(hide_password=False)
            # Superset's own metadata in PostgreSQL too (on SQLite, Superset 6.1's migrations
            # leave datasets unique by table name alone: a second database's `scores` fails)
            metadata_uri = parsed.set(drivername="postgresql+psycopg2", database="superset_metadata"
                                      ).render_as_string(hide_password=False)
            superset = Superset(python, folder, options.port, metadata_uri)
            try:
                results += check_route(superset, db, "pyeval snapshot (DuckDB)", url, "main")
                results += check_route(superset, db, "pyeval publish (PostgreSQL, read-only role)", reader_uri,
                                       "public")
                results += check_rename(superset, db, second)
            finally:
                superset.stop()
    finally:
        if not options.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return print_results(results)


def print_results(results: list[str]) -> int:
    """Print one line per check and the count; the exit status (0: every check passed)."""
    for line in results:
        print(line)
    passed = sum(line.startswith("PASS") for line in results)
    failed = sum(line.startswith("FAIL") for line in results)
    print(f"{passed} passed, {failed} failed")
    return 0 if results and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
