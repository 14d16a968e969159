"""Loaders: qrels, runs, intents, document lengths, and nuggets, answers and their judgments
into the warehouse's tables.

The public names are imported on first use (PEP 562), so that importing one loader (the Python
API's engine imports only ``pyeval.loaders.qrels``) does not import every other one."""
from ..lazy import lazy_attributes

#: Public name -> the module of this package that defines it, and its name there.
_LAZY = {
    "load_topics": ("topics", "load_topics"),
    "QRELS_FORMATS": ("qrels", "QRELS_FORMATS"),
    "LoadReport": ("staging", "LoadReport"),
    "RunMetadata": ("runs", "RunMetadata"),
    "annotate_run": ("runs", "annotate_run"),
    "load_campaign": ("campaign", "load_campaign"),
    "load_doclengths": ("doclengths", "load_doclengths"),
    "load_intents": ("intents", "load_intents"),
    "load_qrels": ("qrels", "load_qrels"),
    "load_run": ("runs", "load_run"),
    "load_runs": ("runs", "load_runs"),
    "run_metadata": ("runs", "run_metadata"),
    "load_nuggets": ("nuggets", "load_nuggets"),
    "load_answers": ("answers", "load_answers"),
    "load_assignments": ("assignments", "load_assignments"),
    "load_support": ("assignments", "load_support"),
}

__all__ = list(_LAZY)


__getattr__ = lazy_attributes(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
