"""The Spark engine (``--engine spark``) as the orchestrator sees it: which families it computes
and the entry point :func:`pyeval.engines.spark.compute_into`, imported on first use (pyspark,
pandas and the transpiler are imported only when Spark computes)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pyeval.vocabulary import ENGINES, lookup

if TYPE_CHECKING:
    import duckdb

    from pyeval.core.request import EvaluationRequest


class SparkEngine:
    """pyeval.core.engine.Engine on a Spark session: every family that is a SQL file, but
    :data:`pyeval.engines.spark.UNSUPPORTED_FAMILIES` (asked of the Spark module, which
    only a Spark evaluation imports)."""

    name = "spark"
    meaning = lookup(ENGINES, name).meaning
    title = "Spark"
    options: tuple[str, ...] = ("spark", "export", "cores", "memory")  # pyeval.engines.spark.compute_into's

    def unsupported(self, family: str) -> str | None:
        from pyeval.measures import registry

        if registry.has_driver(family):
            return (f"family {family} is computed by a Python driver (pyeval/drivers/) over lists "
                    "DuckDB stages, not by SQL")
        from pyeval.engines.spark import UNSUPPORTED_FAMILIES

        return UNSUPPORTED_FAMILIES.get(family)

    def supports(self, family: str) -> bool:
        return self.unsupported(family) is None

    def compute(self, con: duckdb.DuckDBPyConnection, request: EvaluationRequest, **options) -> None:
        """``request``'s values into ``evaluation_values`` (:func:`pyeval.engines.spark.compute_into`;
        options: its ``spark``, ``export``, ``cores`` and ``memory``)."""
        from pyeval.engines.spark import compute_into

        compute_into(con, request, **options)


ENGINE = SparkEngine()
