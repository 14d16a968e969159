"""The ``pyeval`` command: thin click glue over the library (no SQL, no arithmetic here).

Errors pyeval raises on purpose (:class:`pyeval.errors.PyevalError`) become a one-line
``Error: ...`` and exit status 1; anything else is a bug and keeps its traceback.

This module holds the ``pyeval`` group and what its commands share; the commands live in
the modules named by their group (loading, evaluating, dropins, metaeval, sharing).
"""
from __future__ import annotations

import functools
import sys
import warnings

import click

from pyeval.storage import resources, warehouse
from ..vocabulary import MAX_RISK_ALPHA, OUTPUT_FORMATS, names
from ..errors import PyevalError


def fail_cleanly(command):
    """Turn PyevalError, and the environment's faults (disk full, a read-only file system, a
    folder without write permission), into click's one-line error (exit 1)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except click.exceptions.Exit as exc:
            if exc.exit_code:
                _remove_created_warehouse()
            raise
        except BaseException:
            _remove_created_warehouse()
            raise

    @functools.wraps(command)
    def translated(*args, **kwargs):
        import duckdb

        try:
            return wrapper(*args, **kwargs)
        except PyevalError as exc:
            raise click.ClickException(one_line(exc.command_line or str(exc))) from exc
        except BrokenPipeError:  # the reader went away (pyeval list | head): click ends quietly
            raise
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from exc
        except duckdb.OutOfMemoryException as exc:
            raise click.ClickException(f"{_current_db()}: {resources.out_of_memory(exc)}") from exc
        except (duckdb.IOException, duckdb.FatalException) as exc:
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc
        except duckdb.TransactionException as exc:
            if "Failed to commit" not in str(exc):  # a write conflict or the like: a bug
                raise
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc

    return translated


def _remove_created_warehouse() -> None:
    """A command that fails after creating its warehouse leaves no file behind: the file (and
    its write-ahead log) is removed when this very command created it (open_warehouse)."""
    import os

    ctx = click.get_current_context(silent=True)
    created = (ctx.find_object(dict) or {}).pop("created", None) if ctx else None
    if created is None:
        return
    path, con = created
    con.close()
    for name in (path, path + ".wal"):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


#: Control characters (a newline in a name) shown escaped, so an error stays one line.
_ESCAPED = {code: repr(chr(code))[1:-1] for code in (*range(0x20), 0x7f)}


def one_line(message: str) -> str:
    """``message`` with its control characters escaped (``\\n`` for a newline): one line."""
    return message.translate(_ESCAPED)


def _current_db() -> str:
    """The --db of the running command (for an error that names no file)."""
    ctx = click.get_current_context(silent=True)
    return (ctx.find_object(dict) or {}).get("db", warehouse.DEFAULT_PATH) if ctx else warehouse.DEFAULT_PATH


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"warning: {message}", err=True)


def open_warehouse(ctx: click.Context, read_only: bool = False, *, create: bool = True, external_access: bool = True):
    """The --db warehouse. ``create``: a missing file may be created (loads); commands that need
    a stored campaign pass False, so a mistyped --db leaves no empty warehouse behind."""
    import os

    path = str(ctx.obj["db"])
    new = create and not read_only and path != ":memory:" and not os.path.lexists(path)
    con = warehouse.connect(path, read_only=read_only, create=create and not read_only,
                            external_access=external_access)
    if new:  # removed again if the command fails (fail_cleanly)
        ctx.obj["created"] = (path, con)
    ctx.call_on_close(con.close)
    return con


def storing(con, store: bool):
    """The command's one transaction when it stores (:func:`pyeval.core.db.transaction`), else
    nothing: its rows, and the figure or file it writes after them, go together or not at all."""
    import contextlib

    from pyeval.core.db import transaction

    return transaction(con) if store else contextlib.nullcontext()


def _non_empty(ctx, param, value):
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty")
    return value


def run_names(runs) -> list[str] | None:
    """The runs of --runs (repeatable, comma-separated); None: every run. A --runs that names
    no run (``--runs ',,,'``) is refused rather than taken for every run."""
    names = [name.strip() for value in runs for name in value.split(",") if name.strip()]
    if runs and not names:
        raise click.BadParameter("names no run", param_hint="'--runs'")
    return names or None


def checked_output(what: str, is_ours=None, *, replaceable: bool = False):
    """A click callback: the one guard of an option that names an output file
    (:func:`pyeval.storage.ownership.require_replaceable_output`), run before any work. ``what``
    names the kind of file; ``is_ours(path)`` proves an existing file is pyeval's output of that
    kind (replaced without asking); ``replaceable``: the command has :func:`replace_option`, and
    given it replaces any regular file but the warehouse. The callback carries ``output_kind``
    and ``replaceable`` (tests/test_output_guard.py finds every guarded option by them); called
    with no context (a --plot PREFIX's files, checked in the command), it takes the running
    command's."""
    def check(ctx, param, value):
        if value is None:
            return None
        from pyeval.storage import ownership

        ctx = ctx or click.get_current_context(silent=True)
        root = ctx.find_root().obj if ctx is not None else None
        try:
            if what == "figure":
                ownership.figure_format(value)
            ownership.require_replaceable_output(
                value, what, is_ours, replace=bool(replaceable and ctx is not None and ctx.params.get("replace")),
                warehouse=(root or {}).get("db"), replace_hint="--replace" if replaceable else None)
        except PyevalError as exc:
            raise click.ClickException(one_line(str(exc))) from exc
        return value
    check.output_kind = what
    check.replaceable = replaceable
    return check


def _is_pyeval_figure(path) -> bool:
    from pyeval.storage import ownership

    return ownership.is_pyeval_figure(path)


#: The check of a --plot path (a click callback): a new file or a figure pyeval saved.
checked_figure = checked_output("figure", _is_pyeval_figure)


def require_figure_paths(paths) -> None:
    """Refuse, before any work, the figure files a --plot PREFIX would write (each checked as
    :data:`checked_figure` checks one --plot path)."""
    for path in paths:
        checked_figure(None, None, path)


def replace_option(command):
    """--replace: an output file that exists is replaced (never the warehouse, a DuckDB file, a
    link, a device or a FIFO: :func:`checked_output`). Eager, so the guard sees it."""
    return click.option("--replace", is_flag=True, is_eager=True,
                        help="Replace the output file if it exists (never the warehouse, another DuckDB "
                        "database, a symbolic link, a device or a FIFO).")(command)


def output_option(command):
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(names(OUTPUT_FORMATS)),
        default="table",
        show_default=True,
        help="How to print the result.",
    )(command)


class CommandGroup(click.Group):
    """The ``pyeval`` group. Its commands are defined in the modules of pyeval/cli/, each
    imported when one of its commands is first looked up (``modules``: command name -> module,
    pyeval/cli/__init__.py), so that a command imports only its own group's module
    (``pyeval trec_eval``: the drop-ins'); listing the commands (``pyeval --help``,
    ``main.commands``) or an unknown name imports them all."""

    def __init__(self, *args, **kwargs):
        self.modules: dict[str, str] = {}
        self._importing = False
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> dict[str, click.Command]:
        if not self._importing:  # a module being imported registers its commands
            for module in dict.fromkeys(self.modules.values()):
                self._import(module)
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value

    def _import(self, module: str) -> None:
        import importlib

        self._importing = True
        try:
            importlib.import_module(f"pyeval.cli.{module}")
        finally:
            self._importing = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.modules and cmd_name not in self._commands:
            self._import(self.modules[cmd_name])
        return self._commands.get(cmd_name) or self.commands.get(cmd_name)


def _memory_limit(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--memory-limit as DuckDB reads it, refused when it is not a size or a share."""
    if value is None:
        return None
    try:
        return resources.check_memory_limit(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="PYEVAL_DB",
    default=warehouse.DEFAULT_PATH,
    show_default=True,
    metavar="PATH",
    callback=_non_empty,
    help="Warehouse file: loads and evaluate create or upgrade it; sql and list read an existing one. "
    "Environment variable PYEVAL_DB.",
)
@click.option(
    "--memory-limit",
    envvar="PYEVAL_MEMORY_LIMIT",
    metavar="SIZE",
    callback=_memory_limit,
    help="Memory DuckDB may use (4GB, 512MB, or a share of the machine: 60%); what does not fit is "
    f"spilled to a temporary folder pyeval removes at exit. Default {resources.DEFAULT_MEMORY_LIMIT}. "
    "Environment variable PYEVAL_MEMORY_LIMIT.",
)
@click.option(
    "--spill-dir",
    envvar="PYEVAL_SPILL_DIR",
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False),
    help="Folder in which pyeval makes its spill folder (default: the system's temporary folder). "
    "Environment variable PYEVAL_SPILL_DIR.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bars on stderr for long work (loads of many runs, resampling, MEM, fusion grids). "
    "Default: shown when stderr is a terminal.",
)
@click.version_option(package_name="pyeval")
@click.pass_context
def main(ctx: click.Context, db: str, memory_limit: str | None, spill_dir: str | None, progress: bool | None) -> None:
    """pyeval: an SQL-backed evaluation warehouse for information retrieval."""
    from .. import progress as bars

    warnings.showwarning = _show_warning
    ctx.ensure_object(dict)
    ctx.obj["db"] = db
    resources.set_memory_limit(memory_limit, spill_dir=spill_dir)
    bars.set_default(progress)



#: The end of every --judgments option's help: a command given no set reads the campaign's default.
DEFAULT_SET_HELP = " Default: the campaign's default set (pyeval judgments default; official unless changed)."

campaign_option = click.option("--campaign", "-C", required=True, callback=_non_empty,
                         help="Campaign (test collection) name.")


def run_metadata_options(command):
    """--system, --team, --date and --tag: a run's metadata (load run, annotate)."""
    command = click.option("--tag", "tags", multiple=True, help="A tag of the run (repeatable), e.g. production.")(command)
    command = click.option("--date", "run_date", type=click.DateTime(formats=["%Y-%m-%d"]),
                           help="The date the run was made (YYYY-MM-DD), for trends by month.")(command)
    command = click.option("--team", help="The team that made the run.")(command)
    return click.option("--system", help="The system the run comes from (trend views group by it).")(command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


# ---------------------------------------------------------------------------------- option domains


class FiniteFloat(click.ParamType):
    """A finite number (never nan or inf) in ``[min, max]``; ``min_open``/``max_open`` exclude an
    end. Checked when the command line is read, before any work."""

    name = "number"

    def __init__(self, min: float | None = None, max: float | None = None, *, min_open: bool = False,
                 max_open: bool = False):
        self.min, self.max, self.min_open, self.max_open = min, max, min_open, max_open

    def convert(self, value, param, ctx):
        import math

        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        low_ok = self.min is None or (number > self.min if self.min_open else number >= self.min)
        high_ok = self.max is None or (number < self.max if self.max_open else number <= self.max)
        if not (low_ok and high_ok):
            low = "" if self.min is None else f"{self.min:g} {'<' if self.min_open else '<='} "
            high = "" if self.max is None else f" {'<' if self.max_open else '<='} {self.max:g}"
            self.fail(f"{value} is not in the range {low}x{high}", param, ctx)
        return number


#: The domain of every option of the same meaning, declared once for every command.
#: A seed of NumPy's PCG64 (non-negative).
SEED = click.IntRange(min=0, max=2**63 - 1)
#: Resamples of a test (-B): at most a million (the replicates are held in memory).
REPLICATES = click.IntRange(min=1, max=1_000_000)
#: Trials of a subset experiment (--trials): at most a million.
TRIALS = click.IntRange(min=1, max=1_000_000)
#: A significance level or a rate: strictly between 0 and 1.
PROBABILITY = FiniteFloat(0.0, 1.0, min_open=True, max_open=True)
#: A width, a tie band or a margin: a finite number > 0 (``NON_NEGATIVE``: >= 0).
POSITIVE = FiniteFloat(0.0, min_open=True)
NON_NEGATIVE = FiniteFloat(0.0)
#: A number in [0, 1] (ndeval's redundancy penalty alpha and NRBP's patience beta).
UNIT = FiniteFloat(0.0, 1.0)
#: A rank depth or cut-off. Ranks are DuckDB INTEGERs: a larger depth cannot mean anything a
#: run holds (a depth beyond a run's longest list reads the whole list).
DEPTH = click.IntRange(min=1, max=2**31 - 1)
#: A relevance level (a threshold on judged levels): a DuckDB INTEGER, as the levels stored.
LEVEL = click.IntRange(min=-(2**31), max=2**31 - 1)
#: A count of topics, runs or documents (a budget, a subset size, the best K): at least 1, at
#: most what a DuckDB INTEGER holds (a count beyond what the data has is capped or refused by
#: the command).
COUNT = click.IntRange(min=1, max=2**31 - 1)
#: A risk weight alpha (losses weigh 1 + alpha): at most pyeval.vocabulary.MAX_RISK_ALPHA, so
#: that a weighted loss stays finite (``risk --alpha 1e308`` gave infinities).
RISK_ALPHA = FiniteFloat(0.0, MAX_RISK_ALPHA)


def number_list(values, what: str, domain: click.ParamType) -> list[float]:
    """Each value of a repeatable, comma-separated option, in ``domain`` (an empty item, as in
    ``0,,1``, is refused, not skipped)."""
    numbers = []
    for value in values:
        for part in str(value).split(","):
            if not part.strip():
                raise click.BadParameter(f"{value!r} holds an empty item", param_hint=what)
            try:
                numbers.append(domain.convert(part, None, None))
            except click.BadParameter as exc:
                raise click.BadParameter(exc.message, param_hint=what) from None
    return numbers
