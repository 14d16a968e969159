"""Loaders: qrels, runs, intents and document lengths into the warehouse's tables."""
from .campaign import load_campaign
from .doclengths import load_doclengths
from .intents import load_intents
from .qrels import QRELS_FORMATS, load_qrels
from .runs import RunMetadata, annotate_run, load_run, load_runs, run_metadata
from .staging import LoadReport
from .topics import load_topics

__all__ = [
    "load_topics",
    "QRELS_FORMATS",
    "LoadReport",
    "RunMetadata",
    "annotate_run",
    "load_campaign",
    "load_doclengths",
    "load_intents",
    "load_qrels",
    "load_run",
    "load_runs",
    "run_metadata",
]
