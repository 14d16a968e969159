"""Check the client matrix of docs/bi.md against the real clients (not part of the tests).

    python tools/bi_clients_check.py [--cache DIR] [--only CLIENT ...] [--keep]

1. Makes one virtual environment per client under ``--cache`` (default
   ``~/.cache/pyeval-bi-clients``) with the packages docs/bi.md's recipe names
   (:data:`RECIPES`), or for Evidence an npm folder holding an Evidence app written by hand
   (:data:`EVIDENCE_FILES`: no template repository) with the npm packages of its recipe.
2. Builds the warehouse of tools/superset_check.py with this checkout's pyeval (trec_eval's
   test files: two runs, AP, P@10 and NumRet(rel=1), a t test), and for each client writes
   ``pyeval snapshot --for CLIENT`` and, to show what the client cannot read, a snapshot in
   DuckDB's default format.
3. In each client's environment, opens the snapshot through the client's own API, lists the
   relations it shows, and reads NumRet(rel=1) per run from ``leaderboard`` and the mean AP
   per run from ``scores``; checks they equal what ``pyeval sql`` gives on the warehouse, and
   that the relations listed are the public API (PUBLIC_TABLES and the public views). Evidence:
   the snapshot becomes the app's DuckDB source, ``evidence sources --strict`` and ``evidence
   build`` run, and the numbers and relations are read from the query results the built site
   serves (``build/api/prerendered_queries/*.arrow``, named by the page's ``all-queries.json``);
   where Chromium is installed, the built site is served on localhost and the page, rendered
   by headless Chromium, must show the numbers and the count of relations.

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

# the warehouse both checks read, this checkout's CLI and the report: tools/superset_check.py
from superset_check import build_warehouse, print_results, pyeval

ROOT = Path(__file__).resolve().parents[1]

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
    # Evidence 39.1.13 with the core components released with it: its @evidence-dev/universal-sql
    # 2.1.6 writes and reads the app's Parquet files with @duckdb/duckdb-wasm 1.28.0, which has
    # Parquet built in; Evidence 40 (duckdb-wasm 1.32) downloads DuckDB's parquet extension from
    # extensions.duckdb.org during `evidence sources`, and hangs where that host is unreachable.
    # TypeScript is the exact version Evidence's peer dependencies name (else npm picks 7 and
    # refuses to install).
    "evidence": {"npm": ["@evidence-dev/evidence@39.1.13", "@evidence-dev/core-components@4.8.10",
                         "@evidence-dev/duckdb@2.0.1", "typescript@5.4.2"]},
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

#: The Evidence app, file by file (what the template repository would hold, minus the demo):
#: the component and datasource plugins, the DuckDB source reading the snapshot (``filename``
#: is relative to the source's folder), one source query per check, and a page showing them.
EVIDENCE_FILES: dict[str, str] = {
    # Evidence 39 reads its plugins from evidence.plugins.yaml (Evidence 40: evidence.config.yaml)
    "evidence.plugins.yaml": """components:
  "@evidence-dev/core-components": {}
datasources:
  "@evidence-dev/duckdb": {}
""",
    "sources/pyeval/connection.yaml": "name: pyeval\ntype: duckdb\noptions:\n  filename: dash.duckdb\n",
    "sources/pyeval/leaderboard.sql": NUMRET + "\n",
    "sources/pyeval/ap.sql": MEAN_AP + "\n",
    "sources/pyeval/relations.sql": RELATIONS + "\n",
    "pages/index.md": """---
title: pyeval warehouse
---

```sql numret
select run_id, value from pyeval.leaderboard order by run_id
```

```sql mean_ap
select run_id, value from pyeval.ap order by run_id
```

```sql relations
select table_name from pyeval.relations order by table_name
```

## NumRet(rel=1) per run

<DataTable data={numret} rows=all />

## Mean AP per run

<BarChart data={mean_ap} x=run_id y=value swapXY=true />

<DataTable data={mean_ap} rows=all />

## Relations in schema main

<DataTable data={relations} rows=all />
""",
}

#: Evidence sends usage statistics unless told not to (@evidence-dev/telemetry).
EVIDENCE_ENV = {"SEND_ANONYMOUS_USAGE_STATS": "no"}


def environment(cache: Path, client: str) -> list[str]:
    """The command that runs a probe in ``client``'s virtual environment (made if missing)."""
    folder = cache / client
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *RECIPES[client]["pip"]], check=True)
    return [str(python), "-c", PROBES[client]]


def npm_package(spec: str) -> tuple[str, str]:
    """``@scope/name@1.2.3`` as (``@scope/name``, ``1.2.3``)."""
    name, _, version = spec.rpartition("@")
    return name, version


def evidence_project(cache: Path) -> Path:
    """The Evidence app's npm folder: package.json with the recipe's exact versions, installed."""
    folder = cache / "evidence"
    manifest = {"name": "pyeval-evidence", "version": "0.0.1", "private": True, "type": "module",
                "scripts": {"sources": "evidence sources", "build": "evidence build",
                            "dev": "evidence dev", "preview": "evidence preview"},
                "dependencies": dict(npm_package(spec) for spec in RECIPES["evidence"]["npm"])}
    written = folder / "package.json"
    if not (written.exists() and json.loads(written.read_text()) == manifest
            and (folder / "node_modules" / "@evidence-dev" / "evidence").exists()):
        folder.mkdir(parents=True, exist_ok=True)
        written.write_text(json.dumps(manifest, indent=2) + "\n")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund"], cwd=folder, check=True)
    for name, text in EVIDENCE_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def npm_run(folder: Path, *arguments: str, timeout: int) -> str | None:
    """Run ``npx evidence ARGUMENTS`` in the app; None, or the error (its last lines of output)."""
    try:
        done = subprocess.run(["npx", "evidence", *arguments], cwd=folder, capture_output=True, text=True,
                              env={**os.environ, **EVIDENCE_ENV}, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"evidence {' '.join(arguments)}: no end after {timeout} s"
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    if not done.returncode and not any("Error connecting to datasource" in line for line in errors):
        return None
    return f"evidence {' '.join(arguments)}: " + " | ".join(errors[:2] or lines[-3:])


def installed_version(folder: Path, name: str) -> str:
    """The version of npm package ``name`` installed in ``folder`` (hoisted or nested)."""
    hoisted = folder / "node_modules" / name / "package.json"
    found = [hoisted] if hoisted.exists() else sorted((folder / "node_modules").glob(f"**/node_modules/{name}/package.json"))
    return json.loads(found[0].read_text())["version"] if found else "not installed"


def evidence_app(cache: Path, snapshot: Path, default: Path) -> dict:
    """Build the Evidence app on ``snapshot``; what its built site holds (a probe's JSON object).

    ``evidence build`` runs the page's queries and writes their results as Arrow files the
    page loads (``build/api/prerendered_queries/<hash>.arrow``; the page's ``all-queries.json``
    maps ``<query>_data`` to the hash): the rows read here are those the site shows.
    """
    import pyarrow.ipc

    folder = evidence_project(cache)
    source = folder / "sources" / "pyeval" / "dash.duckdb"
    shutil.rmtree(folder / "build", ignore_errors=True)
    shutil.copyfile(snapshot, source)
    error = npm_run(folder, "sources", "--strict", timeout=600) or npm_run(folder, "build", timeout=1800)
    if error:
        return {"error": error}
    if not (folder / "build" / "index.html").exists():
        return {"error": "evidence build wrote no build/index.html"}
    names = (*(npm_package(spec)[0] for spec in RECIPES["evidence"]["npm"]), "@duckdb/node-api",
             "@duckdb/duckdb-wasm")
    out: dict = {"versions": {name: installed_version(folder, name) for name in names}, "notes": {}}
    pages = list((folder / "build" / "api").glob("*/*/all-queries.json"))
    if len(pages) != 1:
        return {"error": f"expected one page's all-queries.json under build/api, found {len(pages)}"}
    results = json.loads(pages[0].read_text())

    def rows(query: str) -> list[dict]:
        arrow = folder / "build" / "api" / "prerendered_queries" / f"{results[query + '_data']}.arrow"
        return pyarrow.ipc.open_stream(arrow.read_bytes()).read_all().to_pylist()

    out["numret"] = {r["run_id"]: r["value"] for r in rows("numret")}
    out["mean_ap"] = {r["run_id"]: r["value"] for r in rows("mean_ap")}
    out["relations"] = [r["table_name"] for r in rows("relations")]
    parquet = sorted(str(file.relative_to(folder / "build")) for file in (folder / "build").rglob("*.parquet"))
    queries = sorted({key.rsplit("_", 1)[0] for key in results})
    out["notes"]["built site"] = f"build/index.html, Parquet files {parquet}, prerendered queries {queries}"
    out["page_text"] = rendered_text(folder / "build")
    shutil.copyfile(default, source)
    failed = npm_run(folder, "sources", "--strict", timeout=600)
    out["default_format"] = "reads it" if failed is None else "error: " + failed[:240]
    source.unlink()
    return out


#: Headless Chromium as this machine runs it (Debian's chromium; no network beyond localhost).
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=20000", "--dump-dom")


def rendered_text(site: Path) -> str | None:
    """The text a browser shows of ``site``'s index page (served on localhost, rendered by
    headless Chromium with its scripts run), or None when no Chromium is installed."""
    import functools
    import html
    import re
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server, \
            tempfile.TemporaryDirectory(prefix="pyeval-chromium-") as profile:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            done = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                   f"http://127.0.0.1:{server.server_address[1]}/"],
                                  capture_output=True, text=True, timeout=180, check=False)
        finally:
            server.shutdown()
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", done.stdout, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def public_api() -> tuple[set[str], set[str]]:
    """The public relations and the public tables (pyeval/sharing/common.py)."""
    sys.path.insert(0, str(ROOT))
    from pyeval.storage.public import PUBLIC_TABLES, PUBLIC_VIEWS

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
    if "page_text" in found:  # Evidence: what the built page shows in a browser
        text = found["page_text"]
        if text is None:
            lines.append(f"INFO {client}: the page was not opened in a browser (no chromium on PATH)")
        else:
            shown = [f"{run} {value:g}" for run, value in want_numret.items()] + [f"of {len(public)} records"]
            ok = all(piece in text for piece in shown)
            lines.append(f"{'PASS' if ok else 'FAIL'} {client}: the page in headless Chromium shows {shown}"
                         + ("" if ok else f"; it shows: {text[:300]}"))
    for note, value in found.get("notes", {}).items():
        lines.append(f"INFO {client}: {note}: {value}")
    return lines


def run_probe(cache: Path, client: str, snapshot: Path, default: Path, folder: Path) -> dict:
    """Run ``client``'s probe on ``snapshot`` in its environment; the JSON object it prints."""
    env = {**os.environ, "SNAPSHOT": str(snapshot), "DEFAULT": str(default),
           "URL": pyeval(snapshot, "url").strip(), "URL_SETTABLE": pyeval(snapshot, "url", "--settable").strip()}
    done = subprocess.run(environment(cache, client), capture_output=True, text=True, env=env, cwd=folder, check=False)
    try:
        return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    except (json.JSONDecodeError, IndexError):
        return {"error": f"probe failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"}


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
            if "npm" in RECIPES[client]:
                found = evidence_app(options.cache, snapshot, default)
            else:
                found = run_probe(options.cache, client, snapshot, default, folder)
            if "versions" in found:
                print(f"versions {client}: {json.dumps(found['versions'])}")
            results += check(client, found, want_numret, want_ap, public, tables)
    finally:
        if not options.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return print_results(results)


if __name__ == "__main__":
    sys.exit(main())
