"""Optional engines for warehouses that outgrow one DuckDB process (docs/engines.md).

* ``spark`` (``pip install 'pyeval[spark]'``): :func:`pyeval.engines.spark.evaluate` reads a
  campaign's tables from Parquet, executes the evaluation's plan (the same views, stages
  and metric SQL, ad hoc and diversity) on a Spark session (the Spark SQL generated from the DuckDB files by :mod:`pyeval.engines.transpile`)
  and stores the per-topic scores in the warehouse like :func:`pyeval.evaluate`.
* ``ray`` (``pip install 'pyeval[ray]'``): :mod:`pyeval.engines.ray_engine` shards the
  resampling stage (significance tests, discriminative power) over Ray workers, with the
  stored replicates, bit for bit the single-process results.

The engines of ``pyeval evaluate --engine`` are objects (pyeval.core.engine.Engine: name,
meaning, ``supports(family)``, ``compute``), one per module: :mod:`pyeval.engines.duckdb_engine`
and :mod:`pyeval.engines.spark_engine`, registered here with pyeval.core.engine when ``pyeval`` is
imported. DuckDB stays the default engine: Spark's and Ray's modules are imported only when asked for.
"""
from __future__ import annotations

from pyeval.core.engine import register_engine

from ..vocabulary import ENGINES, RESAMPLING_ENGINES as _RESAMPLING_ENGINES, names
from . import duckdb_engine, spark_engine

for _engine in (duckdb_engine.ENGINE, spark_engine.ENGINE):
    register_engine(_engine)

#: Engines of ``pyeval evaluate --engine`` and of the resampling commands' ``--engine``
#: (pyeval.vocabulary, by name).
EVALUATION_ENGINES = names(ENGINES)
RESAMPLING_ENGINES = names(_RESAMPLING_ENGINES)
