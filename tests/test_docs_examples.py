"""Every example in docs/ runs as written, and prints what its page shows.

The examples are the fenced ``sh``, ``python`` and ``sql`` blocks of each docs/*.md page (an
unlabelled block is a synopsis, a file layout or an output, never an example; a test below
checks that no unlabelled block is a runnable command line). Each page runs in its own empty
folder, with ``pyeval`` run from this checkout: a page shows its own setup (``pyeval sample``,
``pyeval load ...``, ``pyeval demo --out NAME``), and its blocks run in order make what the
later ones read, as a reader pasting them would. :data:`PAGES` only says which warehouse a
page's ``sql`` blocks read, and which folder stands for a server's folder the page names:

- an ``sh`` block runs in bash (``set -e -o pipefail``) with ``pyeval`` on the PATH; when the
  next block is unlabelled and follows it directly (or after one paragraph ending in ``:``),
  it is the output: what the block prints on stdout ends with it. A second unlabelled block
  right after that one is the end of stderr;
- a ``python`` block runs in one namespace per page, empty at the start (the page imports
  ``pyeval`` and opens its connections itself); a last line ``# VALUE`` under an expression
  is that expression's repr;
- an ``sql`` block runs read-only on the page's warehouse; an unlabelled block right after it
  is the table it prints (``pyeval sql``'s table format).

:data:`SKIPPED` lists the examples not run, each with its reason (an external service, a
benchmark of minutes whose numbers are the page's measurements, an installation).
"""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest

from pyeval.core.duckdb_trees import BEFORE_2

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
LANGUAGES = ("sh", "python", "sql")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    text: str
    before: str  # the text between the previous block and this one


@dataclass
class Example:
    block: Block
    stdout: str | None = None  # the output the page shows
    stderr: str | None = None

    @property
    def name(self) -> str:
        return f"{self.block.page}:{self.block.line}"


def blocks(page: str) -> list[Block]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found, end = [], 0
    for match in FENCE.finditer(text):
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match.group(1), match.group(2),
                           text[end:match.start()]))
        end = match.end()
    return found


def _follows(block: Block) -> bool:
    """An unlabelled block that shows the output of the block before it."""
    between = block.before.strip()
    return block.language == "" and (not between or ("\n\n" not in between and between.endswith(":")))


def examples(page: str) -> list[Example]:
    found = blocks(page)
    result = []
    for i, block in enumerate(found):
        if block.language not in LANGUAGES:
            continue
        example = Example(block)
        if i + 1 < len(found) and _follows(found[i + 1]) and block.language in ("sh", "sql"):
            example.stdout = found[i + 1].text
            if i + 2 < len(found) and found[i + 2].language == "" and not found[i + 2].before.strip():
                example.stderr = found[i + 2].text
        result.append(example)
    return result


# ---------------------------------------------------------------------------------------------
# Each page runs in an empty folder and makes its data itself: nothing hidden is prepared.
# ``cwd``: the folder the examples run in, relative to the repository ("" = the page's empty
# folder; "." for the pages that compare with the checkout's fixture files, as they say).


@dataclass(frozen=True)
class Setup:
    cwd: str = ""
    warehouse: str | None = None  # the warehouse the sql blocks read
    folders: tuple[str, ...] = ()  # a server's folder the page names: the page's folder stands for it


PAGES: dict[str, Setup] = {
    "cli.md": Setup(warehouse="pyeval-demo.duckdb"),
    "bi.md": Setup(folders=("/srv/ir/",)),
    "design.md": Setup(warehouse="web.duckdb"),
    "measures.md": Setup(),
    "judgments.md": Setup(),
    "fusion.md": Setup(),
    "pools.md": Setup(warehouse="pyeval.duckdb"),
    "ntcireval.md": Setup(cwd="."),
    "trec_eval.md": Setup(cwd="."),
    "resampling.md": Setup(warehouse="web.duckdb"),
    "risk.md": Setup(warehouse="web.duckdb"),
    "schema.md": Setup(warehouse="w.duckdb"),
    "reproducibility.md": Setup(warehouse="repro.duckdb"),
}

# page -> (the first line of an example, why it is not run); "*" for the whole page
SKIPPED: dict[tuple[str, str], str] = {
    ("benchmarks.md", "*"): "benchmarks of minutes to an hour; their output is the page's measurements "
                            "on one machine, and the engine jobs need Spark and Ray",
    ("bi.md", "*/10 * * * * flock /srv/ir/work.lock pyeval --db /srv/ir/work.duckdb snapshot "
              "/srv/ir/dash.duckdb"): "a crontab entry for a server's paths",
    ("bi.md", "python tools/superset_check.py          # [--venv DIR] [--port 8188] [--keep]"):
        "installs and starts Apache Superset (an external service)",
    ("bi.md", "python -m venv one && . one/bin/activate"):
        "installs packages (pip) in a new environment; tests/test_one_environment.py checks Ibis and JupySQL "
        "on a warehouse in the environment running it",
    ("bi.md", "import ibis, pyeval"): "needs Ibis, which needs DuckDB below 2 (the environment above); "
                                     "tests/test_one_environment.py runs it there",
    ("engines.md", "*"): "installs packages (pip) and Java, then runs Spark and Ray (a JVM start of minutes); "
                         "tests/engines checks both engines against DuckDB",
    ("queries.md", "*"): "tests/test_queries_doc.py runs this page's setup and queries, and compares every "
                         "table, on DuckDB and on PostgreSQL",
    ("rag.md", "*"): "the page's examples name the files of a TREC RAG campaign (rag24), which are not bundled: "
                     "tests/loaders/test_rag_loaders.py runs its formats and loads, tests/test_rag_queries.py its "
                     "worked queries on a generated campaign, and pyeval demo the whole path on the bundled sample",
}

if BEFORE_2:  # the pages show what pyeval prints on DuckDB 2.0
    SKIPPED.update({
        ("bi.md", "pyeval --db /srv/ir/work.duckdb sql \"select tags['storage_version'] as storage_version "
                  "from duckdb_databases() where database_name = current_database()\""):
            "shows DuckDB 2.0's file format; before 2.0 it is v1.0.0+, as the page says",
        ("cli.md", "pyeval explain -m P@10"):
            "the SQL is printed by the installed DuckDB (json_deserialize_sql): DuckDB 1.x prints the "
            "family's last CTE and its select on one line, one line fewer",
    })


def _skip_reason(example: Example) -> str | None:
    page = example.block.page
    first = example.block.text.splitlines()[0]
    return SKIPPED.get((page, "*")) or SKIPPED.get((page, first))


def _pages() -> list[str]:
    return sorted(p.name for p in DOCS.glob("*.md"))


def test_every_page_with_examples_has_a_setup_or_a_reason():
    for page in _pages():
        runnable = [e for e in examples(page) if not _skip_reason(e)]
        assert not runnable or page in PAGES, f"docs/{page} has examples; give it a Setup in PAGES"


def _is_command_line(line: str) -> bool:
    return bool(re.match(r"(\$ )?pyeval ", line))


def _is_synopsis(text: str) -> bool:
    """A command's synopsis: options in brackets or placeholders in capitals."""
    return bool(re.search(r"\[|\||\.\.\.|\b(CAMPAIGN|MEASURE|FILES?|DIR|PATH|NAME|SPEC|QRELS|RUN|RESULTS|OUT|TEXT"
                          r"|QUERY|COMMAND|TOPIC|FORMAT|PROFILE|TARGET|ROLE|SOURCE|VARIANT|DEPTH|URL)\b", text))


def test_unlabelled_command_lines_are_synopses():
    """A runnable command line is in an ``sh`` block, so that it is run below."""
    for page in _pages():
        for block in blocks(page):
            if block.language == "" and not _follows(block):
                lines = [line for line in block.text.splitlines() if _is_command_line(line)]
                concrete = [line for line in lines if not _is_synopsis(line)]
                assert not concrete, f"docs/{page}:{block.line}: label the example ```sh so that it runs: {concrete[0]}"


# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_warehouse(tmp_path_factory) -> Path:
    """``pyeval demo``'s warehouse, built once for the pages that build it (minutes)."""
    path = tmp_path_factory.mktemp("demo") / "pyeval-demo.duckdb"
    result = _pyeval(["--db", str(path), "demo"], path.parent)
    assert result.returncode == 0, result.stderr[-3000:]
    return path


def _environment(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               COLUMNS="200")
    env.pop("PYEVAL_DB", None)
    return env


def _pyeval(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYEVAL_DB", None)
    return subprocess.run([sys.executable, "-m", "pyeval.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True)


@dataclass
class Folder:
    path: Path
    env: dict[str, str]
    namespace: dict = field(default_factory=dict)


def _prepare(page: str, root: Path) -> Folder:
    """The page's empty folder, with ``pyeval`` of this checkout on the PATH."""
    setup = PAGES[page]
    bin_dir = root / "bin"
    bin_dir.mkdir()
    script = bin_dir / "pyeval"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pyeval.cli "$@"\n')
    script.chmod(0o755)
    work = root / "work"
    work.mkdir()
    cwd = REPO / setup.cwd if setup.cwd else work
    return Folder(cwd, _environment(bin_dir))


def _local(text: str, setup: Setup, folder: Folder) -> str:
    """The page's text with the server folders it names (also percent-encoded, as in a URL) read
    as the page's folder."""
    for name in setup.folders:
        text = text.replace(name, f"{folder.path}/").replace(quote(name, safe=""), quote(f"{folder.path}/", safe=""))
    return text


def ends_with(printed: str, shown: str) -> bool:
    """``printed`` ends with the lines ``shown``, where a line ``...`` stands for any lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n"
                      for line in shown.rstrip("\n").split("\n"))
    return re.search(f"(?:^|\\n){pattern}\\Z", printed.rstrip("\n") + "\n") is not None


#: A block that only builds the demo warehouse (``pyeval demo --out NAME``) is run as a copy of
#: the session's demo warehouse to NAME: the same command's output, built once (minutes).
DEMO_LINE = re.compile(r"pyeval demo --out (\S+)")


def _run_sh(example: Example, folder: Folder, setup: Setup, demo=None) -> None:
    lines = _local(example.block.text, setup, folder).strip().splitlines()
    if demo is not None and DEMO_LINE.fullmatch(lines[0]):
        shutil.copyfile(demo(), folder.path / DEMO_LINE.fullmatch(lines[0]).group(1))
        lines = lines[1:]
        if not lines:
            return
        example = Example(Block(example.block.page, example.block.line, "sh", "\n".join(lines) + "\n",
                                example.block.before), example.stdout, example.stderr)
    script = "set -e -o pipefail\n" + _local(example.block.text, setup, folder)
    done = subprocess.run(["bash", "-c", script], cwd=folder.path, env=folder.env, capture_output=True, text=True)
    assert done.returncode == 0, (
        f"docs/{example.name} failed (exit {done.returncode}):\n{example.block.text}\n"
        f"{done.stdout[-2000:]}{done.stderr[-3000:]}")
    if example.stdout is not None:
        assert ends_with(done.stdout, _local(example.stdout, setup, folder)), (
            f"docs/{example.name} shows an output the commands do not print:\n{done.stdout}")
    if example.stderr is not None:
        assert ends_with(done.stderr, _local(example.stderr, setup, folder)), (
            f"docs/{example.name} shows a stderr the commands do not print:\n{done.stderr}")


def _run_python(example: Example, folder: Folder, setup: Setup) -> None:
    namespace = folder.namespace
    text = _local(example.block.text, setup, folder)
    tree = ast.parse(text)
    lines = text.rstrip("\n").splitlines()
    shown = lines[-1].strip()[1:].strip() if lines[-1].lstrip().startswith("#") else None
    last = tree.body[-1] if tree.body else None
    here = os.getcwd()
    os.chdir(folder.path)
    try:
        if shown is not None and isinstance(last, ast.Expr):
            exec(compile(ast.Module(tree.body[:-1], []), example.name, "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), example.name, "eval"), namespace)
            assert repr(value) == shown, f"docs/{example.name}: {value!r}, the page shows {shown}"
        else:
            exec(compile(tree, example.name, "exec"), namespace)
    finally:
        os.chdir(here)


def _run_sql(example: Example, folder: Folder, setup: Setup) -> None:
    import pyeval
    from pyeval.output import render
    from pyeval.query import run_sql

    con = folder.namespace.get("con") or pyeval.connect(folder.path / setup.warehouse, read_only=True)
    try:
        printed = render(run_sql(con, example.block.text), "table")
    finally:
        if con is not folder.namespace.get("con"):
            con.close()
    if example.stdout is not None:
        assert printed == example.stdout.rstrip("\n"), f"docs/{example.name} prints:\n{printed}"


def _cases() -> list:
    cases = []
    for page in _pages():
        found = examples(page)
        if any(not _skip_reason(e) for e in found):
            cases.append(pytest.param(page, id=page))
    return cases


@pytest.mark.slow  # every page's examples end to end, each command a new process
@pytest.mark.parametrize("page", _cases())
def test_the_page_examples_run_and_print_what_the_page_shows(page, request, tmp_path):
    setup = PAGES[page]
    folder = _prepare(page, tmp_path)
    try:
        for example in examples(page):
            if _skip_reason(example):
                continue
            if example.block.language == "sh":
                _run_sh(example, folder, setup, lambda: request.getfixturevalue("demo_warehouse"))
            elif example.block.language == "python":
                _run_python(example, folder, setup)
            else:
                _run_sql(example, folder, setup)
    finally:
        con = folder.namespace.get("con")
        if con is not None:
            con.close()


def test_cli_page_counts_the_tables_export_writes():
    """docs/cli.md's count of the tables `pyeval export` writes (every public table, `scores` and
    `scores_by_set`)."""
    from pyeval.sharing.export import EXPORTED_VIEWS
    from pyeval.storage.public import PUBLIC_TABLES

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    count = re.search(r"exported N rows of T tables to DIR`: T is (\d+) \(the (\d+) public tables", text)
    assert count and (int(count.group(1)), int(count.group(2))) == (len(PUBLIC_TABLES) + len(EXPORTED_VIEWS),
                                                                           len(PUBLIC_TABLES))
