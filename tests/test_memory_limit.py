"""The memory limit and the spill folder every pyeval connection gets (pyeval/storage/resources.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pyeval.cli import main
from pyeval.storage import resources

from .conftest import BEFORE_2

RUN_LINES = 300_000  # 3,000 topics x 100 documents, 15 MB of text
LIMIT = "512MB" if BEFORE_2 else "192MB"  # DuckDB keeps buffers of its own per thread and operator: 32-64 MB is
# too little here, and 128 MB failed once (116 of 122 MiB) with the order check of run_insert.sql in the plan;
# DuckDB 1.4 and 1.5 ran out of memory at 320 MB (docs/cli.md, "Memory and spilling")


@pytest.mark.parametrize("value", ["4GB", "512MiB", "2.5 GB", "60%", "100%", " 1gb "])
def test_memory_limits_duckdb_reads_are_accepted(value):
    assert resources.check_memory_limit(value) == value.strip()


@pytest.mark.parametrize("value, problem", [
    ("4XB", "give a size with its unit"), ("lots", "give a size with its unit"), ("4", "give a size with its unit"),
    ("0%", "above 0% and at most 100%"), ("150%", "above 0% and at most 100%"),
])
def test_bad_memory_limits_are_refused_by_the_cli_in_one_line(value, problem):
    result = CliRunner().invoke(main, ["--memory-limit", value, "trec_eval", "q", "r"])
    assert result.exit_code == 2
    assert f"Invalid value for '--memory-limit': '{value}' is not a memory limit" in result.output
    assert problem in result.output
    assert "Traceback" not in result.output


def test_a_missing_spill_dir_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["--spill-dir", str(tmp_path / "absent"), "trec_eval", "q", "r"])
    assert result.exit_code == 2 and "'--spill-dir'" in result.output and "does not exist" in result.output


def _child(code: str, **env: str) -> str:
    environment = {**os.environ, **env}
    completed = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_every_connection_gets_the_limit_and_a_spill_folder_pyeval_removes_at_exit(tmp_path):
    code = ("import pyeval, duckdb\n"
            "con = pyeval.connect()\n"
            "print(*con.execute(\"select current_setting('memory_limit'), current_setting('temp_directory')\")"
            ".fetchone(), sep='|')\n")
    limit, folder = _child(code, PYEVAL_MEMORY_LIMIT="256MB", PYEVAL_SPILL_DIR=str(tmp_path)).strip().split("|")
    assert limit in ("256.0 MiB", "244.1 MiB")  # DuckDB shows 256MB (10^6 bytes) in MiB
    assert Path(folder).parent == tmp_path and Path(folder).name.startswith("pyeval-spill-")
    assert not Path(folder).exists()  # removed when the process exited
    assert list(tmp_path.iterdir()) == []


def test_the_default_limit_is_a_share_of_the_machine():
    import duckdb

    code = "import pyeval\nprint(pyeval.connect().execute(\"select current_setting('memory_limit')\").fetchone()[0])"
    env = {key: value for key, value in os.environ.items() if key != "PYEVAL_MEMORY_LIMIT"}
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    half = duckdb.connect(config={"memory_limit": resources.duckdb_memory_limit(resources.DEFAULT_MEMORY_LIMIT)})
    assert shown.strip() == half.execute("select current_setting('memory_limit')").fetchone()[0]


def test_what_does_not_fit_is_spilled_to_the_spill_folder(tmp_path):
    profile = tmp_path / "profile.json"
    code = ("import json, pyeval\n"
            "con = pyeval.connect()\n"
            f"con.execute(\"pragma enable_profiling='json'\"); con.execute(\"pragma profiling_output='{profile}'\")\n"
            "con.execute('select count(*) from (select range, random() as r from range(8000000) order by r)').fetchall()\n"
            "con.execute('pragma disable_profiling')\n"
            "print(con.execute(\"select current_setting('temp_directory')\").fetchone()[0])\n")
    (tmp_path / "spill").mkdir()
    # 128 MB of rows to sort under 64 MB (DuckDB's own buffers need some room: 32 MB fails at times)
    folder = _child(code, PYEVAL_MEMORY_LIMIT="64MB", PYEVAL_SPILL_DIR=str(tmp_path / "spill")).strip()
    import json

    profiled = json.loads(profile.read_text())
    # DuckDB 2.0 reports the bytes spilled; before 2.0, the spill folder's peak size
    spilled = profiled["system"]["total_bytes_spilled"] if "system" in profiled else profiled["system_peak_temp_dir_size"]
    assert spilled > 32 << 20  # the sort's 128 MB did not fit: written out
    assert Path(folder).parent == tmp_path / "spill" and not Path(folder).exists()


def test_a_folder_without_the_marker_is_never_removed(tmp_path):
    code = ("import pathlib, pyeval\n"
            "from pyeval.storage import resources\n"
            "folder = pathlib.Path(resources.spill_folder())\n"
            "(folder / resources.SPILL_MARKER).unlink()\n"
            "(folder / 'users-file').write_text('kept')\n"
            "print(folder)\n")
    folder = Path(_child(code, PYEVAL_SPILL_DIR=str(tmp_path)).strip())
    assert (folder / "users-file").read_text() == "kept"


@pytest.fixture(scope="module")
def big_pair(tmp_path_factory):
    """A run of 3,000 topics x 100 documents and its qrels (bench/common.py's generator)."""
    directory = tmp_path_factory.mktemp("big")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import common
    finally:
        sys.path.pop(0)
    common.generate(directory, RUN_LINES // 100, 100, 11)
    return directory / "qrels.txt", directory / "run.txt"


def test_the_drop_in_within_a_small_memory_limit_prints_what_it_prints_without(big_pair, tmp_path):
    qrels, run = big_pair
    measures = ["-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank", "-q"]
    unlimited = CliRunner().invoke(main, ["trec_eval", *measures, str(qrels), str(run)])
    assert unlimited.exit_code == 0, unlimited.output
    code = ("import sys\nfrom pyeval.cli import main\n"
            f"main(['--memory-limit', {LIMIT!r}, '--spill-dir', {str(tmp_path)!r}, 'trec_eval', *{measures!r}, "
            f"{str(qrels)!r}, {str(run)!r}])")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == unlimited.output
    assert list(tmp_path.iterdir()) == []  # the spill folder is gone with the process


def test_a_load_and_evaluate_within_a_small_limit_store_what_an_unlimited_one_stores(big_pair, tmp_path):
    qrels, run = big_pair
    means = []
    for limit, name in ((None, "free.duckdb"), (LIMIT, "limited.duckdb")):
        db = str(tmp_path / name)
        options = ["--db", db] + (["--memory-limit", limit] if limit else [])
        for command in (["load", "qrels", "-C", "c", str(qrels)], ["load", "run", "-C", "c", str(run)],
                        ["evaluate", "-C", "c", "-m", "AP", "-m", "nDCG@10"]):
            code = f"from pyeval.cli import main\nmain({[*options, *command]!r})"
            completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            assert completed.returncode == 0, completed.stderr
        import duckdb

        with duckdb.connect(db, read_only=True) as con:
            means.append(con.execute("select measure, value from run_means order by measure").fetchall())
    assert means[0] == means[1] and len(means[0]) == 2


def test_set_memory_limit_applies_to_the_connections_opened_after_it():
    import pyeval

    try:
        pyeval.set_memory_limit("300MB")
        con = pyeval.connect()
        assert con.execute("select current_setting('memory_limit')").fetchone()[0] == "286.1 MiB"
        con.close()
        with pytest.raises(ValueError, match="is not a memory limit"):
            pyeval.set_memory_limit("300")
    finally:
        pyeval.set_memory_limit(None)
    assert pyeval.connect().execute("select current_setting('memory_limit')").fetchone()[0] != "286.1 MiB"


def test_a_plain_duckdb_connection_to_the_same_file_still_opens(tmp_path):
    """The limit is set on the connection, not given to duckdb.connect: a user's own connection
    to the same file in the same process shares DuckDB's database, which refuses a second
    configuration."""
    import duckdb

    import pyeval

    path = str(tmp_path / "w.duckdb")
    con = pyeval.connect(path)
    plain = duckdb.connect(path)
    assert plain.execute("select count(*) from campaigns").fetchone() == (0,)
    plain.close()
    con.close()
