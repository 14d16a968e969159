"""A throwaway PostgreSQL server for the publish tests: Debian's postgresql package, a cluster
made by initdb in a temporary directory, listening on 127.0.0.1 only, stopped at the end.

``$PYEVAL_TEST_POSTGRES_URL`` names an existing server instead. initdb and postgres refuse to
run as root, so as root the cluster belongs to the ``postgres`` user the package creates.
"""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


class NoServer(Exception):
    """No PostgreSQL server could be started; the message says why."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise NoServer(f"{name} not found (install Debian's postgresql package: apt-get install postgresql)")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_user(user: pwd.struct_passwd | None):
    if user is None:
        return None

    def demote() -> None:
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    return demote


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Yield the SQLAlchemy URL of a running PostgreSQL server (started here if need be)."""
    if os.environ.get("PYEVAL_TEST_POSTGRES_URL"):
        yield os.environ["PYEVAL_TEST_POSTGRES_URL"]
        return
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    user = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise NoServer("running as root and there is no 'postgres' user to run the server as") from None
    folder = Path(tempfile.mkdtemp(prefix="pyeval-pg-"))
    data = folder / "data"
    if user is not None:
        os.chown(folder, user.pw_uid, user.pw_gid)
    port = _free_port()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    run = {"preexec_fn": _as_user(user), "env": env, "capture_output": True, "text": True, "timeout": 120}
    started = False
    try:
        made = subprocess.run([initdb, "-D", str(data), "-U", "pyeval", "--auth=trust", "-E", "UTF8",
                               "--no-sync"], check=False, **run)
        if made.returncode != 0:
            raise NoServer(f"initdb failed: {made.stderr.strip()[-300:]}")
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off"
        start = subprocess.run([pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w",
                                "-t", "60", "start"], check=False, **run)
        if start.returncode != 0:
            log = (folder / "log").read_text(errors="replace") if (folder / "log").exists() else ""
            raise NoServer(f"pg_ctl start failed: {(start.stderr + log).strip()[-300:]}")
        started = True
        yield f"postgresql://pyeval@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], check=False, **run)
        shutil.rmtree(folder, ignore_errors=True)
