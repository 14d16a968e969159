"""Where one ``pyeval`` command's time goes: every statement it sends DuckDB, timed.

    python bench/profile_statements.py [--top N] [--in-order] -- PYEVAL_ARGUMENTS...

e.g. ``python bench/profile_statements.py -- --db w.duckdb evaluate -C c -m official``.

Runs the command in this process (pyeval's own ``main``, as the ``pyeval`` script does) with
``duckdb.connect`` wrapped: the connection itself is timed, and each connection it returns times
its ``execute``, ``sql``, ``executemany``, ``commit`` and ``close`` (the connection's checkpoint). Prints to standard error:
the seconds spent importing duckdb and pyeval's command line, running the command, and inside
DuckDB's calls; then the slowest statements (or every one, in order, with ``--in-order``), each
with the line of pyeval that sent it and its first words. The command's own output goes to
standard output as usual. The wrapper adds about 0.1 ms a call; the figures are wall seconds of
one run, so run it a few times (docs/benchmarks.md quotes the medians it printed).
"""
from __future__ import annotations

import argparse
import sys
import time
import traceback

STARTED = time.perf_counter()
import duckdb  # noqa: E402  (timed from the start of the process)

_TIMED = ("execute", "sql", "executemany", "commit", "close")


class _TimedConnection:
    """A DuckDB connection whose calls of :data:`_TIMED` append (seconds, name, pyeval's line,
    first words of the SQL) to ``log``; everything else is the connection's own."""

    def __init__(self, con: duckdb.DuckDBPyConnection, log: list) -> None:
        object.__setattr__(self, "_con", con)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, name: str):
        attribute = getattr(self._con, name)
        if name not in _TIMED:
            return attribute

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                result = attribute(*args, **kwargs)
                return self if result is self._con else result
            finally:
                seconds = time.perf_counter() - started
                caller = traceback.extract_stack(limit=2)[0]
                text = args[0] if args and isinstance(args[0], str) else name
                self._log.append((seconds, name, f"{caller.filename.rsplit('/', 1)[-1]}:{caller.lineno}",
                                  " ".join(text.split())[:100]))
        return timed

    def __setattr__(self, name: str, value) -> None:
        setattr(self._con, name, value)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return self._con.__exit__(*exc_info)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=25, help="how many of the slowest statements to print")
    parser.add_argument("--in-order", action="store_true", help="every statement, in the order it ran")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="the pyeval command line, after --")
    args = parser.parse_args(argv)
    arguments = args.arguments[1:] if args.arguments[:1] == ["--"] else args.arguments
    log: list = []
    connect = duckdb.connect
    def timed_connect(*arguments, **keywords):
        started = time.perf_counter()
        con = connect(*arguments, **keywords)
        caller = traceback.extract_stack(limit=2)[0]
        log.append((time.perf_counter() - started, "connect", f"{caller.filename.rsplit('/', 1)[-1]}:{caller.lineno}",
                    str(arguments[0]) if arguments else ":memory:"))
        return _TimedConnection(con, log)

    duckdb.connect = timed_connect
    from pyeval.cli import main as pyeval_main

    imported = time.perf_counter()
    try:
        pyeval_main(arguments, standalone_mode=False)
    except SystemExit:
        pass
    finally:
        duckdb.connect = connect
    ran = time.perf_counter()
    in_duckdb = sum(entry[0] for entry in log)
    print(f"imports (duckdb, pyeval's command line) {imported - STARTED:.3f} s; the command {ran - imported:.3f} s, "
          f"{in_duckdb:.3f} s of it in {len(log)} DuckDB calls", file=sys.stderr)
    shown = log if args.in_order else sorted(log, key=lambda entry: -entry[0])[:args.top]
    for seconds, name, where, text in shown:
        print(f"{seconds * 1000:8.1f} ms  {name:11s} {where:26s} {text}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
