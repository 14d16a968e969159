"""Check the client matrix of docs/bi.md against the real clients (not part of the tests).

    python tools/bi_clients_check.py [--cache DIR] [--only CLIENT ...] [--keep]

1. Makes one virtual environment per client under ``--cache`` (default
   ``~/.cache/pyeval-bi-clients``) with the packages docs/bi.md's recipe names
   (:data:`RECIPES`), or for Evidence an npm folder with its DuckDB connector
   (``@evidence-dev/duckdb``, what ``npm run sources`` of an Evidence app runs).
2. Builds a small warehouse with this checkout's pyeval (trec_eval's test files: two runs, AP
   and NumRet(rel=1)), and for each client writes ``pyeval snapshot --for CLIENT`` and, to show
   what the client cannot read, a snapshot in DuckDB's default format.
3. In each client's environment, opens the snapshot through the client's own API, lists the
   relations it shows, and reads NumRet(rel=1) per run from ``leaderboard`` and the mean AP
   per run from ``scores``; checks they equal what ``pyeval sql`` gives on the warehouse, and
   that the relations listed are the public API (PUBLIC_TABLES and the public views).

Prints the versions that ran and one line per check; exit status 0 when every check passed.
Superset is checked by tools/superset_check.py (it needs a server and PostgreSQL).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "trec_eval"

#: Each client's environment as docs/bi.md gives it: pip packages (a venv) or npm packages.
RECIPES: dict[str, dict] = {
    # JupySQL over SQLAlchemy 2: the duckdb-sqlalchemy dialect (duckdb-engine 0.17 fails to
    # reflect columns under SQLAlchemy 2.1; both register duckdb://, so never both)
    # (duckdb-sqlalchemy 1.5.6.5 requires duckdb < 2: DuckDB 1.5)
    "jupysql": {"pip": ["jupysql==0.11.1", "duckdb-sqlalchemy==1.5.6.5", "ipython", "pandas"]},
    # Ibis 12 calls DuckDBPyConnection.fetch_arrow_table, which DuckDB 2.0 no longer has
    "ibis": {"pip": ["ibis-framework[duckdb]==12.0.0", "duckdb<2"]},
    "harlequin": {"pip": ["harlequin==2.17.0"]},
    "frames": {"pip": ["duckdb==2.0.1", "pandas", "polars", "pyarrow", "duckdb-sqlalchemy==1.5.6.4"]},
    "duckdb-engine": {"pip": ["duckdb-engine==0.17.0", "sqlalchemy>=2.1", "pandas"]},
    "evidence": {"npm": ["@evidence-dev/duckdb@2.0.1", "@evidence-dev/db-commons"]},
}

#: ``pyeval snapshot --for`` name of each check.
SNAPSHOT_FOR = {"jupysql": "jupysql", "ibis": "ibis", "harlequin": "harlequin", "frames": "duckdb",
                "duckdb-engine": "duckdb", "evidence": "evidence"}

#: Checks whose dialect lists tables of every schema (duckdb-engine's get_table_names): their
#: listing is reported, not checked (docs/bi.md recommends duckdb-sqlalchemy under SQLAlchemy 2).
LISTS_EVERY_SCHEMA = {"duckdb-engine"}

NUMRET = "select run_id, value from leaderboard where measure = 'NumRet(rel=1)' order by run_id"
MEAN_AP = "select run_id, avg(value) as value from scores where measure = 'AP' group by run_id order by run_id"
RELATIONS = ("select table_name from information_schema.tables where table_catalog = current_database() "
             "and table_schema = 'main' order by table_name")

# Each probe runs in its client's environment: environment variables SNAPSHOT (the client's
# snapshot), DEFAULT (DuckDB's default format), URL and URL_SETTABLE (pyeval url of SNAPSHOT);
# it prints one JSON object: versions, relations, numret, mean_ap, default_format, notes.
PROBES: dict[str, str] = {
    "ibis": r'''
import json, os, importlib.metadata as m
import ibis
out = {"versions": {p: m.version(p) for p in ("ibis-framework", "duckdb")}, "notes": {}}
import gc
for name in ("URL", "URL_SETTABLE"):  # first: DuckDB refuses a second configuration of an open file
    try:
        url_con = ibis.connect(os.environ[name])
        listed = url_con.list_tables()
        out["notes"]["ibis.connect(" + name + ")"] = f"ok, {len(listed)} relations"
        url_con.disconnect()
    except Exception as exc:
        out["notes"]["ibis.connect(" + name + ")"] = "error: " + str(exc).splitlines()[0][:160]
    url_con = None
    gc.collect()
con = ibis.duckdb.connect(os.environ["SNAPSHOT"], read_only=True)
out["relations"] = sorted(con.list_tables())
board = con.table("leaderboard")
numret = board.filter(board.measure == "NumRet(rel=1)").select("run_id", "value")
out["numret"] = {r["run_id"]: r["value"] for r in numret.to_pyarrow().to_pylist()}
scores = con.table("scores")
ap = scores.filter(scores.measure == "AP").group_by("run_id").aggregate(value=scores.value.mean())
out["mean_ap"] = {r["run_id"]: r["value"] for r in ap.to_pyarrow().to_pylist()}
measures = con.table("measures")
out["notes"]["measures['aggregate'] (the column; measures.aggregate is Ibis' method)"] = \
    measures.filter(measures.measure_name == "NumRet").select(measures["aggregate"]).to_pyarrow().to_pylist()[0]["aggregate"]
try:
    ibis.duckdb.connect(os.environ["DEFAULT"], read_only=True).list_tables()
    out["default_format"] = "reads it"
except Exception as exc:
    out["default_format"] = "error: " + str(exc).splitlines()[0][:160]
print(json.dumps(out))
''',
    "jupysql": r'''
import json, os, importlib.metadata as m
from IPython.core.interactiveshell import InteractiveShell
out = {"versions": {p: m.version(p) for p in ("jupysql", "duckdb-sqlalchemy", "duckdb", "SQLAlchemy")}, "notes": {}}
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "sql")
ip.run_line_magic("config", "SqlMagic.displaylimit = 0")
ip.run_line_magic("sql", os.environ["URL"])
def rows(query):
    result = ip.run_cell_magic("sql", "", query)
    return [tuple(r) for r in result]
out["numret"] = dict(rows("select run_id, value from leaderboard where measure = 'NumRet(rel=1)'"))
out["mean_ap"] = dict(rows("select run_id, avg(value) from scores where measure = 'AP' group by run_id"))
def listed(table) -> list[str]:  # the first column of a table %sqlcmd prints
    return [line.strip("|").split("|")[0].strip() for line in str(table).splitlines() if line.startswith("|")][1:]
out["relations"] = sorted(listed(ip.run_line_magic("sqlcmd", "tables")))
out["notes"]["%sqlcmd columns --table scores"] = listed(ip.run_line_magic("sqlcmd", "columns --table scores"))
import duckdb
try:
    duckdb.connect(os.environ["DEFAULT"], read_only=True).close()
    out["default_format"] = "reads it"
except Exception as exc:
    out["default_format"] = "error: " + str(exc).splitlines()[0][:160]
print(json.dumps(out))
''',
    "harlequin": r'''
import json, os, importlib.metadata as m
from harlequin_duckdb.adapter import DuckDbAdapter
out = {"versions": {p: m.version(p) for p in ("harlequin", "duckdb")}, "notes": {}}
def connect(path):
    return DuckDbAdapter(conn_str=(path,), read_only=True).connect()
con = connect(os.environ["SNAPSHOT"])
catalog = con.get_catalog()  # harlequin's data catalog pane: databases, schemas (loaded lazily), relations
database = catalog.items[0]
schemas = database.fetch_children()
main = [schema for schema in schemas if schema.label == "main"][0]
out["relations"] = sorted(item.label for item in main.fetch_children())
out["notes"]["catalog pane: database, schemas"] = [database.label, [schema.label for schema in schemas]]
def rows(query):
    data = con.execute(query).fetchall()  # what the results pane shows: an Arrow table
    return [tuple(r.values()) for r in data.to_pylist()] if hasattr(data, "to_pylist") else [tuple(r) for r in data]
out["numret"] = dict(rows("select run_id, value from leaderboard where measure = 'NumRet(rel=1)'"))
out["mean_ap"] = dict(rows("select run_id, avg(value) from scores where measure = 'AP' group by run_id"))
try:
    connect(os.environ["DEFAULT"]).get_catalog()
    out["default_format"] = "reads it"
except Exception as exc:
    out["default_format"] = "error: " + str(exc).splitlines()[0][:160]
print(json.dumps(out))
''',
    "frames": r'''
import json, os, importlib.metadata as m
import duckdb, pandas as pd, polars as pl, sqlalchemy as sa
out = {"versions": {p: m.version(p) for p in ("duckdb", "pandas", "polars", "pyarrow", "duckdb-sqlalchemy", "SQLAlchemy")},
       "notes": {}}
con = duckdb.connect(os.environ["SNAPSHOT"], read_only=True)
numret = "select run_id, value from leaderboard where measure = 'NumRet(rel=1)'"
ap = "select run_id, avg(value) as value from scores where measure = 'AP' group by run_id"
out["numret"] = dict(con.sql(numret).df().itertuples(index=False, name=None))
out["mean_ap"] = dict(con.sql(ap).pl().iter_rows())
out["relations"] = sorted(r[0] for r in con.execute("select table_name from information_schema.tables "
                                                    "where table_schema = 'main'").fetchall())
con.close()  # DuckDB refuses a second configuration of a file open in this process
engine = sa.create_engine(os.environ["URL"])
out["notes"]["pandas.read_sql over pyeval url"] = dict(pd.read_sql(numret, engine).itertuples(index=False, name=None)) == out["numret"]
out["notes"]["polars.read_database over pyeval url"] = dict(pl.read_database(ap, engine).iter_rows()) == out["mean_ap"]
out["notes"]["sa.inspect views"] = sorted(sa.inspect(engine).get_view_names())
try:
    duckdb.connect(os.environ["DEFAULT"], read_only=True).close()
    out["default_format"] = "reads it"
except Exception as exc:
    out["default_format"] = "error: " + str(exc).splitlines()[0][:160]
print(json.dumps(out))
''',
    "duckdb-engine": r'''
import json, os, importlib.metadata as m
import pandas as pd, sqlalchemy as sa
out = {"versions": {p: m.version(p) for p in ("duckdb-engine", "duckdb", "SQLAlchemy")}, "notes": {}}
engine = sa.create_engine(os.environ["URL"])
out["numret"] = dict(pd.read_sql("select run_id, value from leaderboard where measure = 'NumRet(rel=1)'", engine)
                     .itertuples(index=False, name=None))
out["mean_ap"] = dict(pd.read_sql("select run_id, avg(value) from scores where measure = 'AP' group by run_id", engine)
                      .itertuples(index=False, name=None))
inspector = sa.inspect(engine)
out["relations"] = sorted(inspector.get_table_names() + inspector.get_view_names())
try:
    out["notes"]["sa.inspect(engine).get_columns('scores')"] = [c["name"] for c in inspector.get_columns("scores")]
except Exception as exc:
    out["notes"]["sa.inspect(engine).get_columns('scores')"] = "error: " + str(exc).splitlines()[0][:160]
out["default_format"] = "not tried (same DuckDB as frames)"
print(json.dumps(out))
''',
}

EVIDENCE_PROBE = r'''
const runQuery = require('@evidence-dev/duckdb');
const { testConnection } = require('@evidence-dev/duckdb');
const fs = require('fs');
async function rows(query, filename) {
  const result = await runQuery(query, { filename });
  const found = [];
  for await (const batch of result.rows()) found.push(...batch);
  return found;
}
(async () => {
  const lock = JSON.parse(fs.readFileSync('node_modules/@duckdb/node-api/package.json', 'utf8'));
  const out = { versions: { '@evidence-dev/duckdb': JSON.parse(fs.readFileSync('node_modules/@evidence-dev/duckdb/package.json', 'utf8')).version,
                            '@duckdb/node-api': lock.version }, notes: {} };
  const snapshot = process.env.SNAPSHOT;
  out.numret = Object.fromEntries((await rows("select run_id, value from leaderboard where measure = 'NumRet(rel=1)'", snapshot)).map(r => [r.run_id, r.value]));
  out.mean_ap = Object.fromEntries((await rows("select run_id, avg(value) as value from scores where measure = 'AP' group by run_id", snapshot)).map(r => [r.run_id, r.value]));
  out.relations = (await rows("select table_name from information_schema.tables where table_schema = 'main' order by 1", snapshot)).map(r => r.table_name);
  const tested = await testConnection({ filename: process.env.DEFAULT }, undefined);
  out.default_format = tested === true ? 'reads it' : 'error: ' + String(tested.reason).trim().split('\n')[0].slice(0, 160);
  console.log(JSON.stringify(out));
})().catch(e => { console.log(JSON.stringify({ error: String(e.message || e).split('\n')[0] })); });
'''


def pyeval(db: Path, *arguments: str) -> str:
    """Run this checkout's ``pyeval`` CLI; its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pyeval.cli", "--db", str(db), *arguments],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"pyeval {' '.join(arguments)} failed: {done.stderr or done.stdout}")
    return done.stdout


def build_warehouse(folder: Path) -> Path:
    db = folder / "work.duckdb"
    pyeval(db, "load", "qrels", "-C", "trec6", str(FIXTURES / "qrels.test"))
    pyeval(db, "load", "run", "-C", "trec6", "--name", "bm25", "--system", "bm25", "--date", "2024-03-01",
           "--tag", "baseline", str(FIXTURES / "results.test"))
    pyeval(db, "load", "run", "-C", "trec6", "--name", "short", "--system", "short", "--date", "2024-04-01",
           str(FIXTURES / "results.trunc"))
    pyeval(db, "evaluate", "-C", "trec6", "-m", "AP", "-m", "NumRet(rel=1)")
    return db


def environment(cache: Path, client: str) -> list[str]:
    """The command that runs a probe in ``client``'s environment (made if missing)."""
    recipe = RECIPES[client]
    folder = cache / client
    if "npm" in recipe:
        if not (folder / "node_modules" / "@evidence-dev" / "duckdb").exists():
            folder.mkdir(parents=True, exist_ok=True)
            subprocess.run(["npm", "init", "-y"], cwd=folder, check=True, capture_output=True)
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", *recipe["npm"]], cwd=folder, check=True)
        return ["node", "-e", EVIDENCE_PROBE]
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *recipe["pip"]], check=True)
    return [str(python), "-c", PROBES[client]]


def public_api() -> tuple[set[str], set[str]]:
    """The public relations and the public tables (pyeval/sharing/common.py)."""
    sys.path.insert(0, str(ROOT))
    from pyeval.sharing.common import PUBLIC_TABLES, PUBLIC_VIEWS

    return set(PUBLIC_TABLES) | set(PUBLIC_VIEWS), set(PUBLIC_TABLES)


def check(client: str, found: dict, want_numret: dict, want_ap: dict, public: set[str], tables: set[str]) -> list[str]:
    if "error" in found:
        return [f"FAIL {client}: {found['error']}"]
    lines = []
    numret = {k: float(v) for k, v in found["numret"].items()}
    ok = numret == want_numret
    lines.append(f"{'PASS' if ok else 'FAIL'} {client}: leaderboard NumRet(rel=1) per run {numret} (pyeval {want_numret})")
    ap = {k: float(v) for k, v in found["mean_ap"].items()}
    ok = ap.keys() == want_ap.keys() and all(abs(ap[k] - want_ap[k]) <= 1e-15 for k in want_ap)
    lines.append(f"{'PASS' if ok else 'FAIL'} {client}: scores mean AP per run {ap} (pyeval {want_ap})")
    listed = set(found["relations"])
    # every public table, and nothing but the public API (JupySQL's %sqlcmd tables lists no views)
    ok = tables <= listed <= public
    extra, missing = sorted(listed - public), sorted(public - listed)
    status = "INFO" if client in LISTS_EVERY_SCHEMA else "PASS" if ok else "FAIL"
    lines.append(f"{status} {client}: lists {len(listed)} relations, {len(public & listed)} of the public API's "
                 f"{len(public)}" + (f" (others: {extra}; missing: {missing})" if not ok else "; nothing else"))
    lines.append(f"INFO {client}: DuckDB's default format (pyeval snapshot without --for): {found['default_format']}")
    for note, value in found.get("notes", {}).items():
        lines.append(f"INFO {client}: {note}: {value}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "pyeval-bi-clients")
    parser.add_argument("--only", nargs="*", choices=sorted(RECIPES), default=sorted(RECIPES))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pyeval-bi-clients-"))
    results: list[str] = []
    public, tables = public_api()
    try:
        db = build_warehouse(folder)
        want_numret = {r["run_id"]: float(r["value"]) for r in json.loads(pyeval(db, "sql", "--format", "json", NUMRET))}
        want_ap = {r["run_id"]: float(r["value"]) for r in json.loads(pyeval(
            db, "sql", "--format", "json", MEAN_AP.replace("avg(value)", "cast(avg(value) as varchar)")))}
        default = folder / "default.duckdb"
        pyeval(db, "snapshot", str(default))
        for client in options.only:
            snapshot = folder / f"{client}.duckdb"
            print(pyeval(db, "snapshot", "--for", SNAPSHOT_FOR[client], str(snapshot)).strip())
            env = {**os.environ, "SNAPSHOT": str(snapshot), "DEFAULT": str(default),
                   "URL": pyeval(snapshot, "url").strip(), "URL_SETTABLE": pyeval(snapshot, "url", "--settable").strip()}
            command = environment(options.cache, client)
            cwd = options.cache / client if "npm" in RECIPES[client] else folder
            done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
            try:
                found = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
            except (json.JSONDecodeError, IndexError):
                found = {"error": f"probe failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"}
            if "versions" in found:
                print(f"versions {client}: {json.dumps(found['versions'])}")
            results += check(client, found, want_numret, want_ap, public, tables)
    finally:
        if not options.keep:
            shutil.rmtree(folder, ignore_errors=True)
    for line in results:
        print(line)
    passed = sum(line.startswith("PASS") for line in results)
    failed = sum(line.startswith("FAIL") for line in results)
    print(f"{passed} passed, {failed} failed")
    return 0 if results and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
