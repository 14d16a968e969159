"""The memory a pyeval process lets DuckDB use, and the folder it spills to (docs/cli.md,
"Memory and spilling").

Every connection pyeval opens (:func:`pyeval.storage.warehouse.connect`, the drop-ins' scratch
warehouses, the Python API's resident engine) is given:

- ``memory_limit``: DuckDB's buffer manager keeps the data of a query within it and writes what
  does not fit (sorts, windows, joins, aggregates) to temporary files. The default,
  :data:`DEFAULT_MEMORY_LIMIT`, is a share of the machine's memory as DuckDB sees it (its
  cgroup's limit in a container); pyeval's own Python objects and DuckDB's allocations outside
  the buffer manager come on top, so the process's peak is somewhat above the limit.
- ``temp_directory``: a folder pyeval makes for the process (``pyeval-spill-*`` under the system's
  temporary folder, or under the folder the user names), holding a marker file; DuckDB removes its
  files when a query ends, and pyeval removes the folder when the process exits, after checking
  that the marker is there (the folder is pyeval's). DuckDB's own default would be ``.tmp`` in the
  working directory (in-memory databases) or ``<warehouse>.tmp`` beside the file, left behind.

Set them with ``pyeval --memory-limit 4GB --spill-dir /scratch ...`` (or ``PYEVAL_MEMORY_LIMIT``
and ``PYEVAL_SPILL_DIR``) or :func:`set_memory_limit` in Python, before the connections are opened.
"""
from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

#: The limit when the user sets none: half of the machine's memory (DuckDB's own default is 80%,
#: which leaves too little for pyeval's Python objects and the operating system's file cache).
DEFAULT_MEMORY_LIMIT = "50%"

#: A memory limit as DuckDB reads it: a number and a unit (``4GB``, ``512MiB``, ``2.5 GB``) or a
#: share of the machine (``60%``).
_LIMIT = re.compile(r"^\s*\d+(\.\d+)?\s*(%|b|bytes|[kmgt]i?b)\s*$", re.IGNORECASE)

#: The file that marks a spill folder as pyeval's: only a folder holding it is ever removed.
SPILL_MARKER = ".pyeval-spill"

_lock = threading.Lock()
_settings = {"memory_limit": None, "spill_dir": None}
_spill_folder: Path | None = None
#: Every spill folder this process made (a new --spill-dir makes another; connections opened
#: before keep theirs), with the process id that made them: a forked child removes none.
_made: list[tuple[int, Path]] = []


def check_memory_limit(value: str) -> str:
    """``value`` if DuckDB reads it as a memory limit (``4GB``, ``512MiB``, ``60%``); a ValueError
    naming the accepted forms otherwise."""
    if not _LIMIT.match(str(value)):
        raise ValueError(f"{value!r} is not a memory limit: give a size with its unit (4GB, 512MB, 2GiB) "
                         "or a share of the machine's memory (60%)")
    if str(value).strip().endswith("%") and not 0 < float(str(value).strip()[:-1]) <= 100:
        raise ValueError(f"{value!r} is not a memory limit: a share of the machine's memory is above 0% and at most 100%")
    return str(value).strip()


def set_memory_limit(limit: str | None = None, *, spill_dir: str | os.PathLike[str] | None = None) -> None:
    """Let DuckDB use at most ``limit`` of memory (``"4GB"``, ``"60%"``; None: the default,
    ``$PYEVAL_MEMORY_LIMIT`` or :data:`DEFAULT_MEMORY_LIMIT`) in every connection pyeval opens from
    now on, spilling to a folder pyeval makes under ``spill_dir`` (None: ``$PYEVAL_SPILL_DIR`` or
    the system's temporary folder) and removes when the process exits."""
    global _spill_folder
    if limit is not None:
        limit = check_memory_limit(limit)
    if spill_dir is not None and not Path(spill_dir).is_dir():
        raise ValueError(f"{spill_dir}: no such folder (the spill folder is made inside it)")
    with _lock:
        _settings["memory_limit"] = limit
        if spill_dir is not None and _settings["spill_dir"] != str(spill_dir):
            _settings["spill_dir"] = str(spill_dir)
            _spill_folder = None  # the next connection makes one in the new place


def memory_limit() -> str:
    """The limit every new connection gets: :func:`set_memory_limit`'s, else
    ``$PYEVAL_MEMORY_LIMIT``, else :data:`DEFAULT_MEMORY_LIMIT`."""
    chosen = _settings["memory_limit"] or os.environ.get("PYEVAL_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT
    return check_memory_limit(chosen)


def spill_folder() -> str:
    """The process's spill folder, made on first use: ``pyeval-spill-*`` (with :data:`SPILL_MARKER`)
    under the folder :func:`set_memory_limit` or ``$PYEVAL_SPILL_DIR`` names, or the system's
    temporary folder."""
    global _spill_folder
    with _lock:
        if _spill_folder is None or not (_spill_folder / SPILL_MARKER).is_file():
            parent = _settings["spill_dir"] or os.environ.get("PYEVAL_SPILL_DIR") or None
            if parent is not None and not Path(parent).is_dir():
                raise ValueError(f"{parent}: no such folder (PYEVAL_SPILL_DIR: the spill folder is made inside it)")
            folder = Path(tempfile.mkdtemp(prefix="pyeval-spill-", dir=parent))
            (folder / SPILL_MARKER).write_text("A folder pyeval made for DuckDB's temporary files; "
                                               "removed when the process that made it exits.\n")
            _spill_folder = folder
            _made.append((os.getpid(), folder))
        return str(_spill_folder)


def connection_config() -> dict[str, str]:
    """DuckDB settings of every connection pyeval opens: the memory limit and the spill folder."""
    return {"memory_limit": duckdb_memory_limit(memory_limit()), "temp_directory": spill_folder()}


#: DuckDB's default memory limit is this share of the memory it sees (DuckDB 1.x and 2.0).
_DUCKDB_DEFAULT_SHARE = 0.8
_DUCKDB_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB|TiB|PiB)\s*$")
_BINARY_UNITS = {"bytes": 0, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4, "PiB": 5}


def duckdb_memory_limit(limit: str) -> str:
    """``limit`` as the installed DuckDB reads it: DuckDB before 2.0 reads no share of the machine
    (``60%``), so a share becomes that share of the memory DuckDB sees, in MiB."""
    if not limit.endswith("%"):
        return limit
    machine = _machine_memory()
    if machine is None:
        return limit
    return f"{int(machine * float(limit[:-1]) / 100 / 1024 ** 2)}MiB"


@functools.cache
def _machine_memory() -> int | None:
    """The bytes of memory DuckDB sees (its cgroup's limit in a container), from the default
    memory limit of a fresh connection; None if the installed DuckDB reads shares itself."""
    import duckdb

    from pyeval.storage import compat

    if not compat.BEFORE_2:
        return None
    con = duckdb.connect(":memory:")
    try:
        default = con.execute("select current_setting('memory_limit')").fetchone()[0]
    finally:
        con.close()
    size = _DUCKDB_SIZE.match(str(default))
    if size is None:
        raise RuntimeError(f"DuckDB's default memory limit {default!r} is not a size pyeval reads")
    return int(float(size[1]) * 1024 ** _BINARY_UNITS[size[2]] / _DUCKDB_DEFAULT_SHARE)


def out_of_memory(error: Exception) -> str:
    """One line for DuckDB's out-of-memory error ``error``: what failed, and the limit to raise."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return (f"{first} (pyeval's memory limit: {memory_limit()}; raise it with --memory-limit or "
            "PYEVAL_MEMORY_LIMIT, e.g. --memory-limit 8GB)")


def _remove_spill_folders() -> None:
    """At exit: remove the spill folders this process made that still hold :data:`SPILL_MARKER`."""
    for pid, folder in _made:
        if pid == os.getpid() and (folder / SPILL_MARKER).is_file():
            shutil.rmtree(folder, ignore_errors=True)


atexit.register(_remove_spill_folders)
