"""The exceptions and warnings pyeval raises on purpose.

Everything a user can cause derives from :class:`PyevalError`; the CLI turns it into a
one-line message and exit status 1. Anything else is a bug and keeps its traceback.
"""
from __future__ import annotations


class PyevalError(Exception):
    """Base of every error pyeval raises on purpose. ``command_line``: the message in the
    command line's terms (its options) where they differ from Python's; None: the same."""

    command_line: str | None = None


def require_choice(what: str, value: object, choices) -> None:
    """PyevalError ``WHAT must be one of A, B; got 'x'`` unless ``value`` is one of ``choices``
    (one check for every closed choice of the Python API; the CLI's choices come from
    pyeval.vocabulary)."""
    if value not in choices:
        raise PyevalError(f"{what} must be one of {', '.join(map(str, choices))}; got {value!r}")


def require_printable(what: str, name: str) -> None:
    """PyevalError when a name a user gives (a campaign, a run, a team, a tag) holds a control
    character (a newline, a tab, an escape; Unicode category Cc): every name is one line of
    text wherever it is printed, exported or written into a run file."""
    import unicodedata

    bad = next((ch for ch in name if unicodedata.category(ch) == "Cc"), None) if isinstance(name, str) else None
    if bad is not None:
        raise PyevalError(f"{what} {name!r} holds a control character ({bad!r}); use printable characters")


def with_command_line(error: PyevalError, command_line: str) -> PyevalError:
    """``error`` (worded for Python callers: argument names) with its command-line wording
    (option names), which the CLI prints instead."""
    error.command_line = command_line
    return error


class InputFormatError(PyevalError, ValueError):
    """A bad line in an input file (or a bad row of an input DataFrame).

    The message reads ``SOURCE:LINE: what is wrong``, like a compiler's.
    """

    def __init__(self, source: str, line: int | None, message: str):
        self.source = source
        self.line = line
        self.reason = message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")


class DuplicateEntryError(InputFormatError):
    """A document judged twice for a topic (and intent), or retrieved twice for a topic."""


class DataIntegrityError(PyevalError):
    """Input that is well formed but conflicts with what the warehouse holds."""


class UnknownCampaignError(PyevalError, LookupError):
    """A campaign name that the warehouse does not hold."""


class SchemaVersionError(PyevalError):
    """The warehouse's recorded migrations do not match the code's migrations/."""


class WarehouseLockedError(PyevalError):
    """The warehouse file is open in another process (DuckDB lets one process write a file and
    no other open it meanwhile), or open in this one with other settings: try again later."""


class NotOwnedError(PyevalError):
    """A file or folder pyeval did not make: it is left exactly as it was (docs/reliability.md)."""


class NotAWarehouseError(NotOwnedError, SchemaVersionError):
    """A database file that is not a pyeval warehouse (or not a DuckDB file at all)."""


class QueryError(PyevalError):
    """A user's ad-hoc SQL failed (``pyeval sql``)."""


class PyevalWarning(UserWarning):
    """Base of pyeval's warnings."""


class SingleIntentWarning(PyevalWarning):
    """Diversity measures evaluated topics that have one relevant intent only (every topic of
    an ad hoc campaign)."""


class InputWarning(PyevalWarning):
    """Input that loads but looks suspicious (differing run tags, probabilities not summing to 1)."""


class MeasureNameWarning(PyevalWarning):
    """A measure name that another tool uses for another measure: the warning names both."""


class MeasureNameError(PyevalError, ValueError):
    """A measure string that cannot be parsed."""


class UnknownMeasureError(MeasureNameError):
    """A measure name pyeval does not know; the message lists close matches."""


class MeasureParamError(PyevalError, ValueError):
    """A measure parameter of the wrong type, outside its allowed values, or unknown."""


def already_stored(
    what: str,
    *,
    them: bool = False,
    error: type[PyevalError] | None = None,
    python_remedy: str | None = None,
    cli_remedy: str | None = None,
) -> PyevalError:
    """The error for something a load or definition would store that exists already: the
    remedy says ``replace=True`` in Python and ``--replace`` on the command line (the CLI
    prints :attr:`PyevalError.command_line`)."""
    target = "them" if them else "it"
    exc = (error or DataIntegrityError)(f"{what}; {python_remedy or f'replace=True replaces {target}'}")
    exc.command_line = f"{what}; {cli_remedy or f'use --replace to replace {target}'}"
    return exc


class TrecEvalError(PyevalError):
    """A trec_eval usage or input error (``pyeval trec_eval``, trec_eval measure names);
    ``status`` is trec_eval's exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status
