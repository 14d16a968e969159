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
- :mod:`.report`: the per-run reports: ``pyeval report`` (an HTML page and a PDF per run, an index).
- :mod:`.repro`: reproducibility and longitudinal evaluation: ``pyeval relate``, ``repro`` and ``longitudinal``.
- :mod:`.sharing`: sharing the warehouse: ``pyeval annotate``, ``url``, ``snapshot``, ``export``, ``attach``
  and ``publish``.

Each command's module is imported when the command is first looked up (:data:`COMMANDS`,
pyeval.cli.base.CommandGroup): ``pyeval trec_eval`` imports the drop-ins' module only; listing
the commands (``pyeval --help``, ``main.commands``) imports them all.
"""
from __future__ import annotations

from .base import main

#: The module of pyeval/cli/ that defines each command of ``pyeval``
#: (tests/compat/test_lean_startup.py checks it against the commands the modules register).
COMMANDS = {
    "dropins": ("trec_eval", "ntcireval", "ndeval"),
    "evaluating": ("sql", "list", "demo", "sample", "explain", "evaluate"),
    "loading": ("load", "gains", "intents", "to-traditional"),
    "metaeval": ("significance", "discpower", "compare", "swaprate", "stability", "correlate", "concordance",
                 "robustness", "mem"),
    "sharing": ("annotate", "url", "snapshot", "export", "attach", "publish"),
    "risk": ("risk", "design"),
    "fusion": ("fuse", "fusions", "export-run", "delete-run"),
    "judgments": ("judgments",),
    "pools": ("pool",),
    "report": ("report",),
    "repro": ("relate", "repro", "longitudinal"),
}
main.modules.update({name: module for module, names in COMMANDS.items() for name in names})

__all__ = ["main"]
