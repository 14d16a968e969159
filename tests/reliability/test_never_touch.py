"""Files pyeval must never touch (issue 32, "Files pyeval must never touch"): a ``--db`` that is a
device, a FIFO, a socket or a directory is refused before anything is opened, unlinked or
created; nothing hangs on a FIFO."""
from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import QRELS, cli, one_line_error, warehouse

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args) -> tuple[int, str]:
    """The pyeval command in a child process, killed after 60 s (a FIFO must not block the suite)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        result = subprocess.run([sys.executable, "-m", "pyeval.cli", *map(str, args)], capture_output=True,
                                text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pyeval {' '.join(map(str, args))} blocked for 60 s")
    return result.returncode, result.stdout + result.stderr


def _fake_device(path):
    """A character device node like /dev/null (1, 3) at ``path`` (skips where mknod is refused)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


@pytest.fixture(params=["fifo", "directory", "device", "socket"])
def special(request, tmp_path):
    path = tmp_path / f"special-{request.param}"
    if request.param == "fifo":
        os.mkfifo(path)
    elif request.param == "directory":
        path.mkdir()
    elif request.param == "device":
        _fake_device(path)
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        request.addfinalizer(server.close)
    return request.param, path


def _mode(path):
    return os.lstat(path).st_mode


@pytest.mark.parametrize("args", [
    ["load", "qrels", "-C", "x", str(QRELS)],
    ["list"],
    ["sql", "select 1"],
    ["evaluate", "-C", "x", "-m", "AP"],
])
def test_a_db_that_is_not_a_regular_file_is_refused_and_left_as_it_was(special, args):
    kind, path = special
    before = _mode(path)
    status, output = (run_cli if kind == "fifo" else cli)("--db", path, *args)
    line = one_line_error(output)
    assert status == 1 and str(path) in line and "pyeval leaves it alone" in line, line
    assert _mode(path) == before  # still the same kind of node: not unlinked, not replaced
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    if kind == "directory":
        assert list(path.iterdir()) == []


def test_a_device_is_refused_and_stays_a_device(tmp_path):
    """A node like /dev/null (made here: the real /dev/null is only looked at, never passed)."""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    device = _fake_device(tmp_path / "null")
    status, output = run_cli("--db", device, "load", "qrels", "-C", "x", QRELS)
    assert status == 1 and "a character device" in one_line_error(output)
    assert stat.S_ISCHR(os.lstat(device).st_mode) and os.lstat(device).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_snapshot_onto_a_fifo_is_refused_without_waiting(tmp_path):
    db = warehouse(tmp_path / "w.duckdb")
    fifo = tmp_path / "snap.duckdb"
    os.mkfifo(fifo)
    status, output = run_cli("--db", db, "snapshot", fifo)
    assert status == 1 and "pyeval leaves it alone" in one_line_error(output)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_an_empty_db_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, output = cli("--db", "", "list")
    assert status != 0 and "must not be empty" in output and "Traceback" not in output
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------- --plot and --curves

#: Each meta-evaluation command with a --plot, with arguments that make it quick.
PLOTTING = {
    "discpower": ["discpower", "-C", "c", "-m", "AP", "--test", "t", "--no-store"],
    "swaprate": ["swaprate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--trials", "20", "--no-store"],
    "stability": ["stability", "-C", "c", "-m", "AP", "--trials", "20", "--no-store"],
    "correlate": ["correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--test", "none", "--no-store"],
    "mem": ["mem", "-C", "c", "-m", "AP", "--depth", "3", "--runs-top", "3", "--topics-top", "2", "--no-store"],
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """A warehouse with AP and nDCG@10 of 6 runs x 12 topics, and a small loaded campaign for mem."""
    import pyeval

    from ..resampling.helpers import grid_matrix, store_matrix

    path = tmp_path_factory.mktemp("scored") / "w.duckdb"
    con = pyeval.connect(path)
    store_matrix(con, grid_matrix(12, 6, 7), "AP", evaluation_id=1)
    store_matrix(con, grid_matrix(12, 6, 8), "nDCG@10", evaluation_id=2)
    con.close()
    return path


@pytest.mark.parametrize("command", ["discpower", "swaprate", "stability", "correlate"])
def test_plot_never_overwrites_the_warehouse_or_a_foreign_file(tmp_path, scored, command):
    from .helpers import digest

    db = tmp_path / "w.svg"  # a warehouse with a figure's suffix
    db.write_bytes(scored.read_bytes())
    foreign = tmp_path / "holiday.png"
    foreign.write_bytes(b"\x89PNG\r\n\x1a\n" + b"someone's photo")
    for target in (db, foreign):
        before = digest(db)
        status, output = cli("--db", db, *PLOTTING[command], "--plot", target)
        line = one_line_error(output)
        assert status == 1 and str(target) in line, line
        assert digest(db) == before
    assert foreign.read_bytes() == b"\x89PNG\r\n\x1a\nsomeone's photo"
    # a new file, then a figure pyeval saved, are written; in the format the suffix names
    for name, magic in (("f.png", b"\x89PNG"), ("f.pdf", b"%PDF-"), ("f.svg", b"<?xml")):
        for _ in range(2):
            status, output = cli("--db", db, *PLOTTING[command], "--plot", tmp_path / name)
            assert status == 0, output
            assert (tmp_path / name).read_bytes().startswith(magic), name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pdf", "f.png", "f.svg", "holiday.png", "w.svg"]


def test_plot_refuses_an_unknown_suffix_before_any_work(tmp_path, scored):
    status, output = cli("--db", scored, *PLOTTING["discpower"], "--plot", tmp_path / "asl.jpg")
    line = one_line_error(output)
    assert status == 1 and "unknown figure suffix '.jpg'" in line and ".png, .pdf or .svg" in line
    assert list(tmp_path.iterdir()) == []


def test_plot_dpi_sets_the_resolution(tmp_path, scored):
    from PIL import Image

    sizes = {}
    for dpi in (50, 100):
        path = tmp_path / f"asl{dpi}.png"
        status, output = cli("--db", scored, *PLOTTING["discpower"], "--plot", path, "--dpi", dpi)
        assert status == 0, output
        sizes[dpi] = Image.open(path).size
    assert sizes[100][0] == pytest.approx(2 * sizes[50][0], abs=2)
    status, output = cli("--db", scored, *PLOTTING["discpower"], "--plot", tmp_path / "x.png", "--dpi", "0")
    assert status != 0 and "Traceback" not in output


def test_mem_plot_never_overwrites_the_warehouse(tmp_path):
    import pyeval

    from .helpers import RUN, digest

    db = warehouse(tmp_path / "w.png", evaluate=False)  # a warehouse with a figure's suffix
    con = pyeval.connect(db)
    pyeval.load_run(con, "c", RUN, name="b")
    con.close()
    before = digest(db)
    args = ["mem", "-C", "c", "-m", "AP", "--depth", "3", "--topics-top", "2", "--no-store"]
    status, output = cli("--db", db, *args, "--plot", db)
    assert status == 1 and "pyeval leaves it alone" in one_line_error(output)
    assert digest(db) == before
    status, output = cli("--db", db, *args, "--plot", tmp_path / "mem.svg")
    assert status == 0, output
    assert (tmp_path / "mem.svg").read_bytes().startswith(b"<?xml")


def test_curves_never_overwrite_the_warehouse_or_a_foreign_csv(tmp_path, scored):
    from .helpers import digest

    db = tmp_path / "w.duckdb"
    db.write_bytes(scored.read_bytes())
    theirs = tmp_path / "theirs.csv"
    theirs.write_text("a,b\n1,2\n")
    for target in (db, theirs):
        before = digest(target)
        status, output = cli("--db", db, *PLOTTING["discpower"], "--curves", target)
        assert status == 1 and str(target) in one_line_error(output)
        assert digest(target) == before
    ours = tmp_path / "asl.csv"
    for _ in range(2):  # created, then replaced (it is the curves CSV pyeval wrote)
        status, output = cli("--db", db, *PLOTTING["discpower"], "--curves", ours)
        assert status == 0, output
        assert ours.read_text().startswith("measure,rank,asl\n")


# ---------------------------------------------------------------------------------- killed exports

#: A process id no process has (above Linux's largest pid_max): the export that left it was killed.
DEAD = 4194304 + 12345


def _exported(tmp_path, name: str, campaign_run: str):
    """An export of a small warehouse whose run is named ``campaign_run``, at tmp_path/name."""
    import pyeval
    from pyeval import sharing

    from .helpers import RUN

    db = tmp_path / f"{name}.duckdb"
    con = pyeval.connect(db)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name=campaign_run)
    sharing.export_parquet(con, tmp_path / name)
    con.close()
    return tmp_path / name


def _runs(folder):
    status, output = cli("attach", folder, "select run_id from runs", "--format", "csv")
    assert status == 0, output
    return output.split()[1:]


def test_an_export_killed_between_its_renames_is_finished_by_attach(tmp_path):
    target = _exported(tmp_path, "export", "old_run")
    built = _exported(tmp_path, "new", "new_run")
    target.rename(tmp_path / f".export.old.{DEAD}.0badc0de")
    built.rename(tmp_path / f".export.build.{DEAD}.0ddba11a")
    assert _runs(target) == ["new_run"]  # the finished build took its place
    # attach only reads: the replaced export stays until the next export removes it
    old = f".export.old.{DEAD}.0badc0de"
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == sorted(["export", old])
    status, output = cli("--db", tmp_path / "export.duckdb", "export", "--parquet", target, "--replace")
    assert status == 0, output
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["export"]


def _build_folder(tmp_path, name):
    """A build folder as a killed export leaves it: pyeval's marker first, then some files."""
    from pyeval.sharing.export import BUILD_MARKER, _build_marker_text

    folder = tmp_path / name
    (folder / "runs").mkdir(parents=True)
    (folder / BUILD_MARKER).write_text(_build_marker_text(folder), encoding="utf-8")
    (folder / "runs" / "data.parquet").write_bytes(b"half")
    return folder


def test_an_export_killed_while_building_is_undone_by_the_next_export(tmp_path):
    target = _exported(tmp_path, "export", "old_run")
    target.rename(tmp_path / f".export.old.{DEAD}.0badc0de")
    half = _build_folder(tmp_path, f".export.build.{DEAD}.0ddba11a")  # no manifest: unfinished
    assert _runs(target) == ["old_run"]  # the export it was replacing is back
    # attach reads: it deletes nothing, not even the killed export's build folder
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == sorted(["export", half.name])
    # a build folder left by a killed export is removed by the next export; a running one's is not
    dead = _build_folder(tmp_path, f".export.build.{DEAD}.feedface")
    running = tmp_path / f".export.build.{os.getpid()}.cafebabe"
    running.mkdir()
    mine = tmp_path / ".export.build.notes"
    mine.mkdir()
    db = tmp_path / "export.duckdb"
    status, output = cli("--db", db, "export", "--parquet", target, "--replace")
    assert status == 0, output
    assert not half.exists() and not dead.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == sorted(["export", running.name, mine.name])


@pytest.mark.parametrize("command", ["attach", "export"])
def test_a_folder_named_like_a_build_but_not_pyevals_is_never_deleted(tmp_path, command):
    """A folder named .DIR.build.<dead pid>.<8 hex> that pyeval did not make (no marker, or a
    marker naming another folder) survives attach and export, its files byte for byte."""
    target = _exported(tmp_path, "export", "old_run")
    theirs = tmp_path / f".export.build.{DEAD}.0ddba11a"
    theirs.mkdir()
    (theirs / "thesis.txt").write_text("four years of work\n")
    copied = _build_folder(tmp_path, f".export.build.{DEAD}.feedface")
    from pyeval.sharing.export import BUILD_MARKER

    (copied / BUILD_MARKER).write_text("pyeval export build .export.build.1.00000000\n")  # another folder's
    if command == "attach":
        assert _runs(target) == ["old_run"]
    else:
        status, output = cli("--db", tmp_path / "export.duckdb", "export", "--parquet", target, "--replace")
        assert status == 0, output
    assert (theirs / "thesis.txt").read_text() == "four years of work\n"
    assert (copied / "runs" / "data.parquet").read_bytes() == b"half"


# ---------------------------------------------------------------------------------- messages


def test_a_name_with_a_newline_is_shown_escaped_on_one_line(tmp_path):
    db = warehouse(tmp_path / "w.duckdb")
    status, output = cli("--db", db, "evaluate", "-C", "no\nsuch", "-m", "AP")
    assert status == 1 and output.count("\n") == 1, output
    assert "'no\\nsuch'" in one_line_error(output)


def test_a_warehouse_open_elsewhere_is_its_own_error(tmp_path):
    import duckdb

    import pyeval
    from pyeval.errors import SchemaVersionError, WarehouseLockedError

    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    holder = duckdb.connect(str(db), config={"threads": 1})  # the same file open with other settings
    try:
        with pytest.raises(WarehouseLockedError, match="cannot open the warehouse") as caught:
            pyeval.connect(db, read_only=True)
        assert not isinstance(caught.value, SchemaVersionError)
    finally:
        holder.close()


def test_an_over_long_line_is_named_before_it_is_read(tmp_path, monkeypatch):
    """A 2.2 GB line gave pyarrow's OverflowError after 87 s; the limit is lowered here so the
    test writes 18 MiB, not gigabytes."""
    from pyeval.loaders import source

    monkeypatch.setattr(source, "LONGEST_LINE", 17 * 2**20)
    path = tmp_path / "run.txt"
    with open(path, "wb") as handle:
        handle.write(b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n1 Q0 " + b"x" * (18 * 2**20) + b" 3 0.5 t\n")
    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    status, output = cli("--db", db, "load", "run", "-C", "c", "--name", "long", path)
    line = one_line_error(output)
    assert status == 1 and f"{path}:3: a line longer than 17 MiB" in line, line
