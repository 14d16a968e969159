"""The ``pyeval`` command (click), one module per command group:

- :mod:`.base`: the ``pyeval`` group, ``--db``, and what every command shares (clean errors, opening
  the warehouse, common options);
- :mod:`.loading`: loading: ``pyeval load`` (qrels, runs, campaigns, intents, document lengths),
  ``pyeval intents``, ``pyeval gains`` and ``pyeval to-traditional``.
- :mod:`.evaluating`: evaluating and querying: ``pyeval evaluate``, ``sql``, ``list``, ``demo`` and ``sample``.
- :mod:`.dropins`: the drop-ins for the reference tools: ``pyeval trec_eval``, ``ntcireval`` and ``ndeval``
  (their own options, their output byte for byte).
- :mod:`.metaeval`: meta-evaluation: significance tests, discriminative power, comparisons, swap rates,
  stability, correlation, concordance, robustness and MEM.
- :mod:`.risk`: the topic x run matrix analyses: ``pyeval risk`` and ``pyeval design``.
- :mod:`.judgments`: judgment sets: ``pyeval judgments list``, ``compare``, ``derive`` and ``holes``.
- :mod:`.pools`: pools: ``pyeval pool build``, ``list``, ``export``, ``coverage``, ``uniques`` and ``loo``.
- :mod:`.sharing`: sharing the warehouse: ``pyeval annotate``, ``url``, ``snapshot``, ``export``, ``attach``
  and ``publish``.

Importing the package registers every command on :func:`main`.
"""
from __future__ import annotations

from . import dropins, evaluating, loading, metaeval, sharing  # noqa: F401 (they register their commands)
from . import risk  # noqa: F401 (registers risk and design)
from . import fusion  # noqa: F401 (pyeval fuse, fusions, export-run, delete-run)
from . import judgments  # noqa: F401 (pyeval judgments list|compare|derive|holes)
from . import pools  # noqa: F401 (pyeval pool build|list|export|coverage|uniques|loo)
from .base import main

__all__ = ["main"]
