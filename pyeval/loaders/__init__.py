"""Loaders: qrels, runs, intents and document lengths into the warehouse's tables."""
from .doclengths import load_doclengths
from .intents import load_intents
from .qrels import QRELS_FORMATS, load_qrels
from .runs import load_run, load_runs
from .staging import LoadReport

__all__ = [
    "QRELS_FORMATS",
    "LoadReport",
    "load_doclengths",
    "load_intents",
    "load_qrels",
    "load_run",
    "load_runs",
]
