"""Loaders: qrels, runs, intents and document lengths into the warehouse's tables.

The public names are imported on first use (PEP 562), so that importing one loader (the Python
API's engine imports only ``pyeval.loaders.qrels``) does not import every other one."""
from importlib import import_module

#: Public name -> the module of this package that defines it.
_LAZY = {
    "load_topics": "topics",
    "QRELS_FORMATS": "qrels",
    "LoadReport": "staging",
    "RunMetadata": "runs",
    "annotate_run": "runs",
    "load_campaign": "campaign",
    "load_doclengths": "doclengths",
    "load_intents": "intents",
    "load_qrels": "qrels",
    "load_run": "runs",
    "load_runs": "runs",
    "run_metadata": "runs",
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pyeval.loaders' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
