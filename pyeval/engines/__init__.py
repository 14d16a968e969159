"""Optional engines for warehouses that outgrow one DuckDB process (docs/engines.md).

* ``spark`` (``pip install 'pyeval[spark]'``): :func:`pyeval.engines.spark.evaluate` reads a
  campaign's tables from Parquet, executes the evaluation's plan (the same views, stages
  and metric SQL, ad hoc and diversity) on a Spark session (the Spark SQL generated from the DuckDB files by :mod:`pyeval.engines.transpile`)
  and stores the per-topic scores in the warehouse like :func:`pyeval.evaluate`.
* ``ray`` (``pip install 'pyeval[ray]'``): :mod:`pyeval.engines.ray_engine` shards the
  resampling stage (significance tests, discriminative power) over Ray workers, with the
  stored replicates, bit for bit the single-process results.

DuckDB stays the default engine: nothing here is imported unless asked for.
"""
from __future__ import annotations

from ..vocabulary import ENGINES, RESAMPLING_ENGINES as _RESAMPLING_ENGINES, names

#: Engines of ``pyeval evaluate --engine`` and of the resampling commands' ``--engine``
#: (pyeval.vocabulary, by name).
EVALUATION_ENGINES = names(ENGINES)
RESAMPLING_ENGINES = names(_RESAMPLING_ENGINES)
