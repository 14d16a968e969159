"""The DuckDB engine (``--engine duckdb``, the default): the plan executed on the warehouse's own
connection by :class:`pyeval.core.stages.DuckDBExecutor`. Every family runs on it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pyeval.vocabulary import ENGINES, lookup

if TYPE_CHECKING:
    import duckdb

    from pyeval.core.request import EvaluationRequest


class DuckDBEngine:
    """pyeval.core.engine.Engine on DuckDB."""

    name = "duckdb"
    meaning = lookup(ENGINES, name).meaning
    title = "DuckDB"
    options: tuple[str, ...] = ()

    def unsupported(self, family: str) -> None:
        return None

    def supports(self, family: str) -> bool:
        return True

    def compute(self, con: duckdb.DuckDBPyConnection, request: EvaluationRequest, **options) -> None:
        """``request``'s values into ``evaluation_values`` (pyeval.core.stages.compute_into)."""
        from pyeval.core.stages import compute_into

        compute_into(con, request, **options)


ENGINE = DuckDBEngine()
