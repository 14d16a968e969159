"""A command that fails changes nothing (issue 38, "Failing commands that change the warehouse"):
its measures, sets, numbers and output paths are checked before any work, and what it stores
is one transaction, so a refusal or a failure after its first write leaves the warehouse file
byte for byte as it was."""
from __future__ import annotations

import hashlib
import re
import shutil

import pytest

import pyeval
from pyeval import sample

from .helpers import cli, digest, one_line_error

RUNS = (*sample.REAL_RUNS, "sim01", "sim02", "sim03", "sim04")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A warehouse of campaign c: the sample's ad hoc qrels (official) and its stricter set, six
    runs of three teams, AP, nDCG@10 and P@10 stored under both sets, pool p (depth 10) and the
    fused run 'fused' (of sim01 and sim02); and diversity campaign div (its qrels, one run)."""
    path = tmp_path_factory.mktemp("failed") / "base.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", sample.path("qrels.adhoc.txt.gz"))
    con.close()
    stricter = tmp_path_factory.getbasetemp() / "stricter.txt"
    import gzip

    with gzip.open(sample.path("qrels.adhoc.txt.gz"), "rt") as handle:
        stricter.write_text("".join(
            f"{t} {i} {d} {max(int(level) - 1, 0)}\n" for t, i, d, level in (line.split() for line in handle)))
    assert cli("--db", path, "load", "qrels", "-C", "c", "--judgments", "stricter", "--kind", "derived",
               stricter)[0] == 0
    for number, run in enumerate(RUNS):
        file = next(p for p in sample.run_paths() if sample.run_name(p) == run)
        status, output = cli("--db", path, "load", "run", "-C", "c", "--name", run, "--team", f"team{number % 3}",
                             file)
        assert status == 0, output
    for judgments in ("official", "stricter"):
        assert cli("--db", path, "evaluate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--judgments",
                   judgments)[0] == 0
    assert cli("--db", path, "pool", "build", "-C", "c", "--name", "p", "--depth", "10")[0] == 0
    assert cli("--db", path, "fuse", "-C", "c", "--method", "rrf", "--runs", "sim01,sim02", "--name", "fused")[0] == 0
    assert cli("--db", path, "load", "qrels", "-C", "div", sample.path("qrels.diversity.txt.gz"))[0] == 0
    assert cli("--db", path, "load", "run", "-C", "div", "--name", "sim01", sample.run_paths()[2])[0] == 0
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A campaign folder: the sample's ad hoc qrels and two runs."""
    root = tmp_path_factory.mktemp("campaign") / "web"
    (root / "runs").mkdir(parents=True)
    shutil.copyfile(sample.path("qrels.adhoc.txt.gz"), root / "qrels.txt.gz")
    for path in sample.run_paths()[2:4]:
        shutil.copyfile(path, root / "runs" / path.name)
    return root


@pytest.fixture
def db(base, tmp_path):
    """A copy of the base warehouse for one test."""
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(base, copy)
    return copy


def refused(db, *args, match: str) -> str:
    """Run a command that must fail in one line (matching ``match``) and leave ``db`` as it was."""
    before = digest(db)
    status, output = cli("--db", db, *args)
    assert status != 0, output
    line = one_line_error(output)
    assert match in line, line
    assert digest(db) == before, f"{args} changed the warehouse"
    return line


# ---------------------------------------------------------------------------------- fuse -m


@pytest.mark.parametrize("more, match", [
    (["-m", "nosuch"], "unknown measure 'nosuch'"),
    (["--judgments", "nosuch", "-m", "AP"], "no judgment set 'nosuch'"),
    (["--grid", "k=10,60", "-m", "nosuch"], "unknown measure 'nosuch'"),
    (["--grid", "k=10,60", "--judgments", "nosuch"], "no judgment set 'nosuch'"),
])
def test_fuse_checks_its_measures_and_set_before_fusing(db, more, match):
    refused(db, "fuse", "-C", "c", "--method", "rrf", "--runs", ",".join(sample.REAL_RUNS), "--name", "f", *more,
            match=match)


def test_fuse_stores_the_run_and_its_evaluation_together(db, monkeypatch):
    """A failure after the fused run is stored (in the comparison) takes the run back too: the
    run and its evaluation are one transaction (a kill in between leaves neither)."""
    import pyeval.resampling as resampling

    def broken(*args, **kwargs):
        raise pyeval.errors.PyevalError("injected failure after the first write")

    before = digest(db)
    monkeypatch.setattr(resampling, "compare", broken)
    status, output = cli("--db", db, "fuse", "-C", "c", "--method", "rrf", "--runs", ",".join(sample.REAL_RUNS),
                         "--name", "f", "-m", "AP")
    assert status == 1 and "injected failure" in output, output
    assert digest(db) == before
    monkeypatch.undo()
    status, output = cli("--db", db, "fuse", "-C", "c", "--method", "rrf", "--runs", ",".join(sample.REAL_RUNS),
                         "--name", "f", "-m", "AP")
    assert status == 0, output
    con = pyeval.connect(db, read_only=True)
    assert con.execute("select count(*) from scores where run_id = 'f' and measure = 'AP'").fetchall() == [(50,)]
    con.close()


# ---------------------------------------------------------------------------------- refusals before any work


def test_design_refuses_its_stability_before_storing_a_design(db):
    refused(db, "design", "-C", "c", "-m", "AP", "--g-study", "50", "--stability", "2", match="--stability")


def test_design_half_width_zero_is_refused_not_taken_for_unset(db):
    refused(db, "design", "-C", "c", "-m", "AP", "--design", "ci", "--half-width", "0", match="--half-width")
    with pytest.raises(pyeval.errors.PyevalError, match="must be positive; got 0"):
        from pyeval.resampling.design import topic_set_design

        con = pyeval.connect(db, read_only=True)
        try:
            topic_set_design(con, "c", ["AP"], designs=["ci"], half_width=0.0, store=False)
        finally:
            con.close()


def _foreign_png(path):
    """A PNG somebody else made (no pyeval mark): never to be replaced."""
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"their figure")
    return path


@pytest.mark.parametrize("command, match", [
    (lambda tmp: ["fuse", "-C", "c", "--method", "rrf", "--runs", ",".join(sample.REAL_RUNS), "--grid", "k=10,60",
                  "--name", "best", "--keep-best", "--plot", _foreign_png(tmp / "grid.png")], "not a figure file"),
    (lambda tmp: ["design", "-C", "c", "-m", "AP", "--plot", _foreign_png(tmp / "design.png")], "not a figure file"),
    (lambda tmp: ["pool", "loo", "-C", "c", "-m", "AP", "--plot", tmp / "loo"]
     if _foreign_png(tmp / "loo-AP.png") else [], "loo-AP.png: exists and is not a figure file"),
    (lambda tmp: ["judgments", "compare", "-C", "c", "--candidate", "stricter", "-m", "AP", "--plot", tmp / "cmp"]
     if _foreign_png(tmp / "cmp-stricter-AP-bland-altman.png") else [], "bland-altman.png: exists and is not"),
    (lambda tmp: ["fuse", "-C", "c", "--method", "rrf", "--runs", ",".join(sample.REAL_RUNS), "--grid", "k=10,60",
                  "--plot", tmp / "no-such-folder" / "grid.png"], "no such directory"),
])
def test_a_plot_pyeval_may_not_write_is_refused_before_anything_is_stored(db, tmp_path, command, match):
    refused(db, *command(tmp_path), match=match)


# ---------------------------------------------------------------------------------- numbers and names


def test_every_numeric_option_is_bounded():
    """Every number a command takes is checked when the command line is read: an integer option
    is an IntRange with both ends (so 2^63 is one line, never DuckDB's ConversionException), a
    real one a finite number (FiniteFloat) or a FloatRange with both ends."""
    import click

    from pyeval.cli import main
    from pyeval.cli.base import FiniteFloat

    unbounded = []

    def walk(command, path):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        for param in command.params:
            kind = param.type
            if isinstance(kind, (click.IntRange, click.FloatRange)):
                if kind.min is None or kind.max is None:
                    unbounded.append((" ".join(path), param.opts[0]))
            elif isinstance(kind, (click.types.IntParamType, click.types.FloatParamType)):
                unbounded.append((" ".join(path), param.opts[0]))
            elif isinstance(kind, FiniteFloat):
                continue

    walk(main, [])
    assert not unbounded, unbounded


BIG = str(2**63)


@pytest.mark.parametrize("args, match", [
    (["pool", "build", "-C", "c", "--name", "q", "--depth", BIG], "Invalid value for '--depth'"),
    (["pool", "build", "-C", "c", "--name", "q", "--depth", str(2**31)], "Invalid value for '--depth'"),
    (["pool", "build", "-C", "c", "--name", "q", "--seed", "-1"], "Invalid value for '--seed'"),
    (["pool", "build", "-C", "c", "--name", "q", "--budget", BIG], "Invalid value for '--budget'"),
    (["pool", "build", "-C", "c", "--name", "q", "--stratum", f"1:{BIG}", "--budget", "5"], "ranks go up to"),
    (["pool", "build", "-C", "c", "--name", "q", "--run-depth", f"indri-ql={BIG}"], "depth must be an integer"),
    (["fuse", "-C", "c", "--method", "wsum", "--runs", "indri-ql,indri-rm", "--weights", "1,,2", "--name", "f"],
     "'1,,2' holds an empty item"),
    (["fuse", "-C", "c", "--method", "wsum", "--runs", "indri-ql,indri-rm", "--weights", "0,0", "--name", "f"],
     "weights are all 0"),
    (["fuse", "-C", "c", "--method", "wsum", "--runs", "indri-ql,indri-rm", "--weights", "-1,2", "--name", "f"],
     "-1 is not in the range"),
    (["fuse", "-C", "c", "--method", "combsum", "--runs", "indri-ql,indri-rm", "--grid", "weights=1.5"],
     "weights must be finite numbers >= 0"),
    (["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--grid", "k=10,,60"], "empty value"),
    (["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--k", "inf", "--name", "f"],
     "Invalid value for '--k'"),
    (["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--output-depth", BIG, "--name", "f"],
     "Invalid value for '--output-depth'"),
    (["risk", "-C", "c", "-m", "AP", "--baseline", "indri-ql", "--alpha", "1e308"], "1e308 is not in the range"),
    (["risk", "-C", "c", "-m", "AP", "--baseline", "indri-ql", "--alpha", "0,,1"], "holds an empty item"),
    (["compare", "-C", "c", "-m", "AP", "--risk-alpha", "1e308"], "Invalid value for '--risk-alpha'"),
    (["design", "-C", "c", "-m", "AP", "--alpha", "2"], "Invalid value for '--alpha'"),
    (["judgments", "derive", "-C", "c", "b", "--from", "official", "--how", "binarise", "--threshold", str(2**40)],
     "Invalid value for '--threshold'"),
    (["judgments", "derive", "-C", "c", "b", "--from", "official", "--how", "binarise", "--threshold", "5"],
     "above the highest level of set 'official' (4)"),
    (["judgments", "compare", "-C", "c", "--candidate", "stricter", "--alpha", "nan"], "Invalid value for '--alpha'"),
    (["stability", "-C", "c", "-m", "AP", "--fuzziness", "0.1,,0.2"], "holds an empty item"),
    (["mem", "-C", "c", "-m", "AP", "--depth", "100000"], "Invalid value for '--depth'"),
    (["swaprate", "-C", "c", "-m", "AP", "--bins", str(2**40)], "Invalid value for '--bins'"),
])
def test_an_absurd_number_is_refused_before_any_work(db, args, match):
    refused(db, *args, match=match)


def test_a_pool_deeper_than_every_run_is_the_pool_of_whole_runs(db):
    """A depth beyond the longest run pools whole runs, as fast as a depth of the longest run
    (the ranks looked at are those the runs hold, never every rank to the depth)."""
    import time

    start = time.perf_counter()
    assert cli("--db", db, "pool", "build", "-C", "c", "--name", "deep", "--depth", str(2**31 - 1))[0] == 0
    assert time.perf_counter() - start < 30
    assert cli("--db", db, "pool", "build", "-C", "c", "--name", "whole", "--depth", "1000")[0] == 0
    con = pyeval.connect(db, read_only=True)
    documents = con.execute("select pool_name, count(*) from pool_documents where pool_name in ('deep', 'whole') "
                            "group by pool_name order by pool_name").fetchall()
    con.close()
    assert documents[0][1] == documents[1][1] > 0, documents


@pytest.mark.parametrize("args, match", [
    (["load", "qrels", "-C", "a\nb", sample.path("qrels.adhoc.txt.gz")], "campaign name 'a\\nb' holds a control"),
    (["load", "run", "-C", "c", "--name", "x\ny", sample.run_paths()[3]], "run name 'x\\ny' holds a control"),
    (["load", "run", "-C", "c", "--name", "z", "--tag", "a\tb", sample.run_paths()[3]], "tag 'a\\tb' holds"),
    (["annotate", "-C", "c", "indri-ql", "--team", "t\x1b"], "team 't\\x1b' holds a control character"),
    (["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--name", "f\x01"], "control character"),
    (["judgments", "derive", "-C", "c", "d\n", "--from", "official", "--how", "binarise", "--threshold", "1"],
     "judgment set name"),
    (["pool", "build", "-C", "c", "--name", "p\n2"], "pool name"),
    (["load", "qrels", "-C", "c", "--judgments", "j", "--judge", "a\nb", sample.path("qrels.adhoc.txt.gz")],
     "judge 'a\\nb' holds a control character"),
])
def test_a_name_with_a_control_character_is_refused_at_every_door(db, args, match):
    refused(db, *args, match=match)


def test_a_converted_campaign_s_name_is_refused_with_a_control_character():
    from pyeval.diversity.campaigns import to_traditional

    con = pyeval.connect()
    pyeval.load_qrels(con, "div", sample.path("qrels.diversity.txt.gz"))
    with pytest.raises(pyeval.errors.PyevalError, match=re.escape("campaign name 'a\\nb' holds a control character")):
        to_traditional(con, "div", "a\nb")
    assert con.execute("select count(*) from campaigns").fetchall() == [(1,)]
    con.close()


# ---------------------------------------------------------------------------------- a failure after the first write

#: A statement that changes a table or view, and the relation it changes.
_WRITE = re.compile(r"^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|alter\s+table|"
                    r"drop\s+(?:table|view)\s+(?:if\s+exists\s+)?|"
                    r"create\s+(?:or\s+replace\s+)?(?P<temporary>temp(?:orary)?\s+)?(?:table|view)\s+(?:if\s+not\s+exists\s+)?)"
                    r"\s*(?P<name>[\w.\"]+)", re.IGNORECASE)


class _Injected:
    """A warehouse connection that counts the statements that write a stored (not temporary)
    table or view, and raises DuckDB's "disk full" error at such write number ``fail_at`` (None:
    never): a failure after the command's first write, at the level of the database, whatever
    code wrote before it."""

    def __init__(self, con, fail_at: int | None):
        self._con, self._fail_at, self.writes = con, fail_at, 0

    def _stores(self, sql: str) -> bool:
        match = _WRITE.match(sql)
        if match is None or match["temporary"]:
            return False
        name = match["name"].replace('"', "").split(".")[-1]
        return bool(self._con.execute(
            "select count(*) from (select table_name as name from duckdb_tables() where not temporary "
            "union all select view_name from duckdb_views() where not temporary and not internal) where name = $n",
            {"n": name}).fetchall()[0][0]) or sql.lstrip()[:6].lower() == "create"

    def execute(self, sql, *args, **kwargs):
        if isinstance(sql, str) and self._stores(sql):
            self.writes += 1
            if self.writes == self._fail_at:
                import duckdb

                raise duckdb.IOException('IO Error: Could not write file "w.duckdb.wal": No space left on device '
                                         "(injected)")
        result = self._con.execute(sql, *args, **kwargs)
        return self if result is self._con else result

    def __getattr__(self, name):
        return getattr(self._con, name)


def _with_injection(monkeypatch, fail_at: int | None) -> list:
    """Make every warehouse the CLI opens an :class:`_Injected` one; the list gets each."""
    from pyeval.storage import warehouse

    opened = []
    real = warehouse.connect

    def connect(*args, **kwargs):
        con = _Injected(real(*args, **kwargs), fail_at)
        opened.append(con)
        return con

    monkeypatch.setattr(warehouse, "connect", connect)
    return opened


def _content(path) -> dict[str, str]:
    """sha256 of the sorted rows of every table of the warehouse (schema main and pyeval's own)."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = con.execute("select schema_name, table_name from duckdb_tables() where not temporary "
                             "order by all").fetchall()
        return {f"{schema}.{table}": hashlib.sha256(repr(sorted(map(repr, con.execute(
            f'select * from "{schema}"."{table}"').fetchall()))).encode()).hexdigest() for schema, table in tables}
    finally:
        con.close()


STORING = {
    "evaluate": ["evaluate", "-C", "c", "-m", "P@5", "-m", "RR"],
    "fuse": ["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--name", "f"],
    "fuse -m": ["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--name", "f", "-m", "AP",
                "--test", "t"],
    "fuse --grid --keep-best": ["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--grid",
                                "k=10,60", "--name", "best", "--keep-best", "--test", "t"],
    "design": ["design", "-C", "c", "-m", "AP"],
    "risk": ["risk", "-C", "c", "-m", "AP", "--baseline", "indri-ql", "--alpha", "0,1"],
    "pool build": ["pool", "build", "-C", "c", "--name", "q", "--depth", "5"],
    "pool coverage": ["pool", "coverage", "-C", "c"],
    "pool loo": ["pool", "loo", "-C", "c", "-m", "AP"],
    "judgments derive": ["judgments", "derive", "-C", "c", "b", "--from", "official", "--how", "binarise",
                         "--threshold", "2"],
    "judgments compare": ["judgments", "compare", "-C", "c", "--candidate", "stricter", "-m", "AP", "--test", "t"],
    "judgments default": ["judgments", "default", "-C", "c", "stricter"],
    "significance": ["significance", "-C", "c", "-m", "AP", "-B", "200"],
    "compare": ["compare", "-C", "c", "-m", "AP", "-m", "nDCG@10", "-B", "200", "--risk-alpha", "1"],
    "discpower": ["discpower", "-C", "c", "-m", "AP", "-B", "200"],
    "swaprate": ["swaprate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--trials", "20"],
    "stability": ["stability", "-C", "c", "-m", "AP", "--trials", "20"],
    "correlate": ["correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "-B", "200"],
    "concordance": ["concordance", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--gold", "P@10"],
    "robustness": ["robustness", "-C", "c", "-m", "nDCG@10", "--profile", "flat"],
    "mem": ["mem", "-C", "c", "-m", "AP"],
    "annotate": ["annotate", "-C", "c", "indri-ql", "--team", "x", "--tag", "t1", "--tag", "t2"],
    "gains": ["gains", "-C", "c", "g2", "1=1,2=3,3=7,4=15"],
    "load run --evaluate": ["load", "run", "-C", "c", "--name", "new", "--evaluate", "AP", sample.run_paths()[9]],
    "load qrels --judgments": ["load", "qrels", "-C", "c", "--judgments", "again", sample.path("qrels.adhoc.txt.gz")],
    "load doclengths": ["load", "doclengths", "-C", "c", sample.path("doclengths.txt.gz")],
    "delete-run": ["delete-run", "-C", "c", "sim04"],
    "fuse --refresh": ["fuse", "-C", "c", "--refresh", "fused"],
    "load intents": ["load", "intents", "-C", "div", sample.path("intents.uniform.txt")],
    "to-traditional": ["to-traditional", "div", "div2t"],
    "load campaign": ["load", "campaign", "-C", "new", "--run-names", "file", "{folder}"],
}


def _arguments(command: str, folder) -> list:
    return [str(folder) if argument == "{folder}" else argument for argument in STORING[command]]


#: Each storing command's writes to stored tables, counted by its first test.
_WRITES: dict[str, int] = {}


@pytest.mark.parametrize("where", ["second", pytest.param("last", marks=pytest.mark.slow)])  # -m slow: the last
@pytest.mark.parametrize("command", list(STORING))
def test_a_failure_after_the_first_write_leaves_the_warehouse_as_it_was(base, folder, tmp_path, monkeypatch, command,
                                                                        where):
    """Each storing command, run once to count its writes, then again on a fresh copy with DuckDB's
    "disk full" at its second and at its last write (a command of at most two writes: its first):
    the command fails in one line and the warehouse file is byte for byte what it was. A
    rolled-back transaction writes nothing to the file or its WAL with DuckDB 2.0, so the bytes
    are compared; when they differ, every table's rows are compared too, so that the failure
    says which tables changed, or that only the bytes did (should a DuckDB version checkpoint or
    reuse blocks on a rollback, that is the line to relax to rows only)."""
    if command not in _WRITES:  # counted once for both positions
        counted = tmp_path / "counted.duckdb"
        shutil.copyfile(base, counted)
        opened = _with_injection(monkeypatch, None)
        status, output = cli("--db", counted, *_arguments(command, folder))
        assert status == 0, output
        _WRITES[command] = sum(con.writes for con in opened)
        monkeypatch.undo()
    writes = _WRITES[command]
    assert writes >= 1, f"{command} wrote nothing"
    # the last write, or (for a command of at most two writes, whose last is its second) the first
    fail_at = min(2, writes) if where == "second" else writes if writes > 2 else 1
    db = tmp_path / "w.duckdb"
    shutil.copyfile(base, db)
    before = digest(db)
    _with_injection(monkeypatch, fail_at)
    status, output = cli("--db", db, *_arguments(command, folder))
    assert status == 1, output
    assert "No space left on device (injected)" in one_line_error(output)
    if digest(db) != before:  # say which tables changed (the copy's bytes were the base's)
        rows, after = _content(base), _content(db)
        assert after == rows, f"{command}: tables changed: {[t for t in rows if rows[t] != after.get(t)]}"
        pytest.fail(f"{command}: same rows, but the file's bytes changed")


# ---------------------------------------------------------------------------------- killed


@pytest.mark.slow
def test_a_killed_fuse_m_leaves_the_run_with_its_evaluation_or_neither(base, tmp_path):
    """SIGKILL at six moments of ``fuse --name f -m AP`` (a child process each, on a fresh copy):
    afterwards the warehouse opens, and holds either no run f, or run f with its AP scores (two
    of six kills left a run without its evaluation when they were two transactions)."""
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    args = ["fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--name", "f", "-m", "AP",
            "--test", "t"]

    def child(db):
        return subprocess.Popen([sys.executable, "-m", "pyeval.cli", "--db", str(db), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))

    whole = tmp_path / "whole.duckdb"
    shutil.copyfile(base, whole)
    started = time.monotonic()
    assert child(whole).wait(timeout=300) == 0
    duration = time.monotonic() - started
    moments = random.Random(20261128).sample(range(1, 100), 6)
    for number, percent in enumerate(sorted(moments)):
        db = tmp_path / f"killed{number}.duckdb"
        shutil.copyfile(base, db)
        process = child(db)
        time.sleep(duration * percent / 100)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        con = pyeval.connect(db, read_only=True)
        runs, scores = con.execute(
            "select (select count(*) from runs where run_id = 'f'), "
            "(select count(*) from scores where run_id = 'f' and measure = 'AP')").fetchall()[0]
        con.close()
        assert (runs, scores) in ((0, 0), (1, 50)), f"killed at {percent} % of {duration:.1f} s: {runs} run, {scores} scores"


@pytest.mark.parametrize("command, owner, method", [
    (["pool", "loo", "-C", "c", "-m", "AP", "--plot"], "pyeval.pools.leave_out:LeaveOut", "plot"),
    (["discpower", "-C", "c", "-m", "AP", "-B", "200", "--plot"], "pyeval.resampling.discpower:DiscriminativePower",
     "plot"),
    (["swaprate", "-C", "c", "-m", "AP", "--trials", "20", "--plot"], "pyeval.resampling.swaprate:SwapRates", "plot"),
    (["stability", "-C", "c", "-m", "AP", "--trials", "20", "--plot"], "pyeval.resampling.stability:Stability",
     "plot"),
    (["correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "-B", "200", "--plot"],
     "pyeval.resampling.correlation:Correlations", "plot"),
    (["mem", "-C", "c", "-m", "AP", "--plot"], "pyeval.resampling.mem:Informativeness", "plot"),
    (["design", "-C", "c", "-m", "AP", "--plot"], "pyeval.resampling.design:TopicSetDesign", "plot"),
    (["judgments", "compare", "-C", "c", "--candidate", "stricter", "-m", "AP", "--test", "t", "--plot"],
     "pyeval.judgments:Comparison", "plot_bland_altman"),
])
def test_a_figure_that_cannot_be_written_takes_back_what_the_command_stored(db, monkeypatch, command, owner, method):
    """The paths are checked first; a figure that still cannot be written (a full disk) leaves
    no rows of the command behind."""
    import importlib

    module, _, name = owner.partition(":")

    def broken(self, path, *args, **kwargs):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(getattr(importlib.import_module(module), name), method, broken)
    before = digest(db)
    target = "figures" if command[0] in ("pool", "judgments") else "figure.png"  # a PREFIX, or a file
    status, output = cli("--db", db, *command, db.parent / target)
    assert status == 1 and "No space left" in output, output
    assert digest(db) == before


def test_a_grid_figure_that_cannot_be_written_stores_no_grid(db, monkeypatch):
    from pyeval.fusion.grid import GridResult

    def broken(self, path, *args, **kwargs):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(GridResult, "plot", broken)
    before = digest(db)
    status, output = cli("--db", db, "fuse", "-C", "c", "--method", "rrf", "--runs", "indri-ql,indri-rm", "--grid",
                         "k=10,60", "--name", "best", "--keep-best", "--test", "t", "--plot", db.parent / "grid.png")
    assert status == 1 and "No space left" in output, output
    assert digest(db) == before
