"""The engines an evaluation runs on, as objects: each engine of ``pyeval evaluate --engine``
(pyeval.vocabulary.ENGINES) registers an :class:`Engine` here (pyeval/engines/: DuckDB and
Spark, registered when ``pyeval`` is imported), and the orchestrator (pyeval.core.evaluation)
asks the request's engine whether it supports each measure's family before it computes.
pyeval/core imports no engine: the engines import this module. Imports nothing heavy.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from pyeval.errors import PyevalError, with_command_line
from pyeval.vocabulary import ENGINES, lookup, names

if TYPE_CHECKING:
    import duckdb

    from pyeval.core.request import EvaluationRequest
    from pyeval.measures import Measure


class Engine(Protocol):
    """An evaluation engine: ``name`` and ``meaning`` as pyeval.vocabulary.ENGINES spells them,
    ``title`` as messages name it, ``options`` the keywords its :meth:`compute` takes beyond the
    request (pyeval.evaluate passes on the keywords that are not the request's settings)."""

    name: str
    meaning: str
    title: str
    options: tuple[str, ...]

    def unsupported(self, family: str) -> str | None:
        """None when the engine computes ``family``, else the reason it does not."""

    def supports(self, family: str) -> bool:
        """Whether the engine computes ``family``."""

    def compute(self, con: duckdb.DuckDBPyConnection, request: EvaluationRequest, **options) -> None:
        """Fill the temporary table ``evaluation_values`` of ``con`` with ``request``'s values."""


_ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> None:
    """Make ``engine`` the one named ``engine.name`` (a name of pyeval.vocabulary.ENGINES, with
    its meaning); ValueError for another name or one registered twice."""
    term = lookup(ENGINES, engine.name)
    if engine.meaning != term.meaning:
        raise ValueError(f"engine {engine.name!r} means {term.meaning!r} (pyeval.vocabulary.ENGINES)")
    if engine.name in _ENGINES:
        raise ValueError(f"engine {engine.name!r} is registered twice")
    _ENGINES[engine.name] = engine


def engine(name: str) -> Engine:
    """The registered engine called ``name``; PyevalError naming the known ones otherwise."""
    found = _ENGINES.get(name)
    if found is None:
        raise PyevalError(f"engine must be one of {', '.join(names(ENGINES))}; got {name!r}")
    return found


def registered() -> tuple[str, ...]:
    """The names of the registered engines, in registration order."""
    return tuple(_ENGINES)


def check_options(engine: Engine, options: Iterable[str], settings: Iterable[str]) -> None:
    """PyevalError naming the first of ``options`` (keywords given beside the request's
    ``settings``) that ``engine`` does not take."""
    for option in options:
        if option not in engine.options:
            taken = ", ".join(engine.options) or "none"
            raise PyevalError(f"unknown keyword {option!r}: the settings of an evaluation are {', '.join(settings)}; "
                              f"the options of engine {engine.name!r} are {taken}")


def check_supported(engine: Engine, measures: Iterable[Measure]) -> None:
    """PyevalError, in one line, naming the first of ``measures`` whose family ``engine`` does
    not compute and why (the command line's wording names ``--engine duckdb``)."""
    for measure in measures:
        reason = engine.unsupported(measure.family)
        if reason is not None:
            what = f"measure {measure} does not run on {engine.title}: {reason}"
            raise with_command_line(PyevalError(f"{what} (use engine='duckdb')"), f"{what} (use --engine duckdb)")
