"""Every option of every command that names an output file goes through one guard
(:func:`pyeval.cli.base.checked_output`, i.e. :func:`pyeval.storage.ownership.require_replaceable_output`):
a new file, or one pyeval proves its own output of that kind, or (only where the command has
--replace) any other regular file; never the warehouse, another DuckDB file, a symbolic link, a
device or a FIFO. The options are found by walking ``pyeval.cli.main``: an option that names a
path and is neither guarded nor listed below as an input (or an output with a check of its own)
fails the test, so a new output option cannot skip the guard."""
from __future__ import annotations

import os
import re
import shutil
import signal
from contextlib import contextmanager

import click
import pytest

from pyeval.cli import main

from .reliability.helpers import cli, digest, one_line_error, warehouse

#: Options that name a file or folder pyeval only reads, or no file at all: (command, parameter name).
INPUTS = {
    ("attach", "directory"), ("evaluate", "export_dir"), ("fuse", "train_topics"),
    ("intents load", "file"), ("intents topics", "file"), ("judgments derive", "exclude_file"),
    ("load campaign", "folder"), ("load doclengths", "files"), ("load intents", "files"),
    ("load qrels", "guideline_file"), ("load qrels", "files"), ("load run", "files"), ("load topics", "file"),
    ("ndeval", "baseline"), ("ndeval", "qrels"), ("ndeval", "results"), ("ntcireval", "qrels"),
    ("ntcireval", "results"), ("trec_eval", "zscores"), ("trec_eval", "qrels"), ("trec_eval", "results"),
    ("robustness", "profiles"),  # names gain profiles, not files
    ("evaluate", "gain_profile"), ("explain", "gain_profile"),  # --gains: a gain profile's name
    ("fuse", "output_depth"),  # a number of documents
    ("to-traditional", "target"),  # a campaign's name
    ("relate", "ir_metadata"),  # an ir-metadata file read
    ("relate", "snapshot"), ("relate", "snapshot_date"),  # a snapshot's label and date, not files
    ("load nuggets", "file"), ("load answers", "file"), ("load assignments", "file"), ("load support", "file"),
    ("load assignments", "guideline_file"), ("load support", "guideline_file"),  # files of generated answers read
    ("load nuggets", "file_format"), ("load answers", "file_format"), ("load assignments", "file_format"),
    ("load support", "file_format"),  # --format: how the file is read, not a file
}

#: Outputs that are not one file, each with a check of its own (tested where named):
#: a --plot PREFIX's figure files each go through the guard in the command (require_figure_paths,
#: tested below); export --parquet and sample write folders (test_ownership.py); demo --out is a
#: warehouse the demo rebuilds, refused unless the demo built it (test below, test_ownership.py);
#: report -o writes a folder, refused unless new, empty or a report folder pyeval wrote (test_report.py).
OWN_CHECK = {
    ("judgments compare", "plot_prefix"), ("pool loo", "plot_prefix"),
    ("export", "directory"), ("sample", "directory"), ("demo", "out"), ("report", "out"),
}

#: What names a path: a click.Path, or a parameter name saying so.
PATH_NAME = re.compile(r"out|plot|curves|file|export|snapshot|report|dir|prefix|path|profile|save|dest|target",
                       re.IGNORECASE)


def _commands(command=main, path=()):
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _commands(sub, path + (name,))
    else:
        yield path, command


def _path_params():
    for path, command in _commands():
        for param in command.params:
            if isinstance(param.type, click.Path) or PATH_NAME.search(param.name or ""):
                yield path, command, param


def _guarded():
    return [(path, command, param) for path, command, param in _path_params()
            if getattr(param.callback, "output_kind", None)]


GUARDED = _guarded()


def test_every_option_naming_a_path_is_guarded_or_an_input():
    unclassified = [f"{' '.join(path)} {param.name}" for path, command, param in _path_params()
                    if not getattr(param.callback, "output_kind", None)
                    and (" ".join(path), param.name) not in INPUTS | OWN_CHECK]
    assert not unclassified, f"output options without the guard (pyeval.cli.base.checked_output): {unclassified}"
    known = {(" ".join(path), param.name) for path, command, param in _path_params()}
    assert not (INPUTS | OWN_CHECK) - known, "stale entries in INPUTS/OWN_CHECK"
    guarded = {(" ".join(path), param.name) for path, command, param in GUARDED}
    assert {("export-run", "out"), ("pool export", "file"), ("snapshot", "out"), ("discpower", "curves"),
            ("discpower", "plot"), ("fuse", "plot")} <= guarded


@pytest.fixture(scope="module")
def warehouses(tmp_path_factory):
    folder = tmp_path_factory.mktemp("guard")
    built = warehouse(folder / "w.duckdb", evaluate=False)
    shutil.copyfile(built, folder / "other.duckdb")
    return folder / "w.duckdb", folder / "other.duckdb"


@contextmanager
def _deadline(seconds: int = 30):
    """Fail instead of hanging (a FIFO opened for writing blocks until a reader comes)."""
    def expired(signum, frame):
        raise AssertionError(f"the command blocked for {seconds} s")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _argv(db, path, command, param, target, replace: bool = False) -> list:
    """The command line with ``target`` as the option's value, placed first so that its check runs
    before click reports anything else missing (a callback runs in the order given)."""
    argv = ["--db", db, *path]
    if replace:
        argv.append("--replace")
    if isinstance(param, click.Argument):
        for other in command.params:
            if other is param:
                break
            if isinstance(other, click.Argument):
                argv.append("x")
        argv.append(target)
    else:
        argv += [param.opts[0], target]
    return argv


def _replaceable(param) -> bool:
    """Whether --replace lets the option replace a file pyeval cannot prove its own."""
    return param.callback.replaceable


def _refused(argv, target, *words) -> str:
    with _deadline():
        status, output = cli(*argv)
    assert status == 1, output
    line = one_line_error(output)
    assert str(target) in line and "pyeval leaves it alone" in line, line
    for word in words:
        assert word in line, line
    return line


IDS = [f"{' '.join(path)} {param.name}" for path, command, param in GUARDED]


@pytest.mark.parametrize("path,command,param", GUARDED, ids=IDS)
def test_the_warehouse_and_other_duckdb_files_are_refused(warehouses, tmp_path, path, command, param):
    """The --db itself, the --db by a hard link, another warehouse: refused, byte for byte the same
    (a figure's path under the figure suffix it needs, the name telling nothing)."""
    db, other = warehouses
    linked, copied = tmp_path / "w.png", tmp_path / "other.png"
    os.link(db, linked)
    shutil.copyfile(other, copied)
    before, before_other = digest(db), digest(copied)
    for replace in (False, True) if _replaceable(param) else (False,):
        with _deadline():
            status, output = cli(*_argv(db, path, command, param, db, replace))
        assert status == 1 and str(db) in one_line_error(output), output
        _refused(_argv(db, path, command, param, linked, replace), linked, "warehouse")
        _refused(_argv(db, path, command, param, copied, replace), copied, "DuckDB")
    assert digest(db) == before and digest(copied) == before_other


@pytest.mark.parametrize("path,command,param", GUARDED, ids=IDS)
def test_links_fifos_and_devices_are_refused(warehouses, tmp_path, path, command, param):
    db, _ = warehouses
    target = tmp_path / "target.txt"
    target.write_text("theirs\n")
    link = tmp_path / "out.png"  # a name every kind accepts (a figure needs a suffix)
    link.symlink_to(target)
    dangling = tmp_path / "dangling.png"
    dangling.symlink_to(tmp_path / "nowhere.png")
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    for replace in (False, True) if _replaceable(param) else (False,):
        _refused(_argv(db, path, command, param, link, replace), link, "symbolic link")
        _refused(_argv(db, path, command, param, dangling, replace), dangling, "symbolic link")
        _refused(_argv(db, path, command, param, fifo, replace), fifo, "FIFO")
        if getattr(param.callback, "output_kind") != "figure":  # a figure is told by its suffix first
            _refused(_argv(db, path, command, param, "/dev/null", replace), "/dev/null", "device")
    assert target.read_text() == "theirs\n" and not (tmp_path / "nowhere.png").exists()


@pytest.mark.parametrize("path,command,param", GUARDED, ids=IDS)
def test_an_existing_file_pyeval_did_not_write_needs_replace(warehouses, tmp_path, path, command, param):
    db, _ = warehouses
    theirs = tmp_path / "thesis.png"
    theirs.write_text("four years of work\n")
    hint = ("--replace",) if _replaceable(param) else ()
    _refused(_argv(db, path, command, param, theirs), theirs, "exists", *hint)
    assert theirs.read_text() == "four years of work\n"
    if _replaceable(param):  # the documented way: --replace passes the guard
        status, output = cli(*_argv(db, path, command, param, theirs, replace=True))
        assert "pyeval leaves it alone" not in output, output


def test_the_figures_of_a_plot_prefix_go_through_the_guard(warehouses, tmp_path):
    """pool loo / judgments compare --plot PREFIX: each figure file is checked by the --plot guard."""
    from pyeval.cli.base import require_figure_paths

    db, _ = warehouses
    link = tmp_path / "p-AP.png"
    link.symlink_to(db)
    with pytest.raises(click.ClickException, match="symbolic link"):
        require_figure_paths([str(link)])
    fifo = tmp_path / "q-AP.png"
    os.mkfifo(fifo)
    with _deadline(), pytest.raises(click.ClickException, match="FIFO"):
        require_figure_paths([str(fifo)])


@pytest.mark.parametrize("kind", ["link", "fifo", "device", "warehouse"])
def test_demo_out_refuses_what_the_demo_did_not_build(warehouses, tmp_path, kind):
    db, other = warehouses
    target = {"link": tmp_path / "l.duckdb", "fifo": tmp_path / "f.duckdb", "device": "/dev/null",
              "warehouse": other}[kind]
    if kind == "link":
        target.symlink_to(other)
    elif kind == "fifo":
        os.mkfifo(target)
    before = digest(other)
    with _deadline(60):
        status, output = cli("--db", db, "demo", "--out", target)
    assert status == 1 and "pyeval leaves it alone" in one_line_error(output), output
    assert digest(other) == before


def test_export_run_and_pool_export_write_a_new_file_and_replace_with_replace(warehouses, tmp_path):
    """The guard lets the ordinary use through: a new file, then --replace over an existing one."""
    db, _ = warehouses
    out = tmp_path / "a.run"
    status, output = cli("--db", db, "export-run", "-C", "c", "a", "--out", out)
    assert status == 0, output
    first = out.read_text()
    assert first.splitlines()[0].endswith(" a")
    status, output = cli("--db", db, "export-run", "-C", "c", "a", "--out", out)
    assert status == 1 and "--replace" in one_line_error(output)
    status, output = cli("--db", db, "export-run", "-C", "c", "a", "--out", out, "--replace")
    assert status == 0, output
    assert out.read_text() == first


def test_the_library_refuses_the_warehouse_it_reads_and_a_fifo(warehouses, tmp_path):
    """pyeval.fusion.export_run (and pools.export, by the same write_output) check their path too."""
    import duckdb

    from pyeval.errors import NotOwnedError
    from pyeval.fusion import export_run

    db, _ = warehouses
    before = digest(db)
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    con = duckdb.connect(str(db), read_only=True)
    try:
        for target, word in ((db, "warehouse"), (fifo, "FIFO")):
            with _deadline(), pytest.raises(NotOwnedError, match=word):
                export_run(con, "c", "a", target, replace=True)
    finally:
        con.close()
    assert digest(db) == before


@pytest.mark.parametrize("existing", [False, True])
def test_a_link_put_there_while_writing_is_not_replaced(warehouses, tmp_path, monkeypatch, existing):
    """Between the check and the rename a symbolic link to the warehouse appears at the path: the
    write is refused, the link and the warehouse stay (create-new is a hard link, which fails on
    anything there; a replace needs the very file checked)."""
    import duckdb

    from pyeval.errors import NotOwnedError
    from pyeval.fusion import export_run
    from pyeval.storage import ownership

    db, _ = warehouses
    before = digest(db)
    out = tmp_path / "a.run"
    if existing:
        out.write_text("old run\n")
    original = ownership.replace_file

    def racing(path, write, swap):
        def write_then_race(temporary):
            write(temporary)
            out.unlink(missing_ok=True)
            out.symlink_to(db)
        return original(path, write_then_race, swap)
    monkeypatch.setattr(ownership, "replace_file", racing)
    con = duckdb.connect(str(db), read_only=True)
    try:
        with pytest.raises(NotOwnedError, match="pyeval leaves it alone"):
            export_run(con, "c", "a", out, replace=existing)
    finally:
        con.close()
    assert out.is_symlink() and digest(db) == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.run"]  # no temporary file left
