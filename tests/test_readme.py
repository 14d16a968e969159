"""README.md's "Command line" block runs top to bottom as written, in an empty directory.

Each line is executed as a new user would type it (shell quoting, trailing comment), with
``pyeval`` run from this checkout. The publish line needs a PostgreSQL server: the line's
placeholder URL becomes a throwaway server's (tests/postgres_server.py), and the line is
reported as not run where none can start.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PLACEHOLDER_URL = "postgresql://bi@db/ir"


def command_lines() -> list[str]:
    """The lines of the README's "Command line" sh block."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^## Command line\n\n```sh\n(.*?)^```", text, re.S | re.M)
    assert found, "README.md has no '## Command line' sh block"
    return [line for line in found.group(1).splitlines() if line.strip()]


def test_the_block_names_only_pyeval_commands():
    lines = command_lines()
    assert len(lines) >= 25
    assert all(shlex.split(line, comments=True)[0] == "pyeval" for line in lines)
    assert shlex.split(lines[0], comments=True)[:2] == ["pyeval", "sample"]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYEVAL_DB", None)
    return subprocess.run([sys.executable, "-m", "pyeval.cli", *argv[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.mark.slow  # 31 commands end to end, each a new process
def test_readme_command_line_runs_top_to_bottom(tmp_path):
    from .postgres_server import NoServer, postgres_server

    for number, line in enumerate(command_lines(), start=1):
        argv = shlex.split(line, comments=True)
        if PLACEHOLDER_URL in argv:
            try:
                with postgres_server() as url:
                    result = _run([url if a == PLACEHOLDER_URL else a for a in argv], tmp_path)
            except NoServer as exc:
                warnings.warn(f"README command line {number} not run: no PostgreSQL server ({exc})")
                continue
        else:
            result = _run(argv, tmp_path)
        assert result.returncode == 0, (
            f"README command line {number} failed (exit {result.returncode}):\n{line}\n"
            f"{result.stdout[-2000:]}{result.stderr[-3000:]}"
        )
    assert (tmp_path / "asl.png").exists() and (tmp_path / "dash.duckdb").exists()
