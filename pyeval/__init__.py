"""pyeval: an SQL-backed evaluation warehouse for information retrieval, on DuckDB.

>>> import pyeval
>>> con = pyeval.connect("campaigns.duckdb")
>>> pyeval.load_qrels(con, "web2012", "qrels.diversity.txt")
>>> pyeval.load_run(con, "web2012", "run.txt", name="bm25")
>>> pyeval.evaluate(con, "web2012", ["AP", "nDCG@10"]).means
>>> con.sql("select * from scores").df()
"""
from .errors import (
    DataIntegrityError,
    InputFormatError,
    PyevalError,
    PyevalWarning,
    SchemaVersionError,
    UnknownCampaignError,
)
from .lazy import lazy_attributes

#: Public names imported on first use (PEP 562), so that `pyeval --help` or `pyeval trec_eval`
#: import only the modules they need.
_LAZY = {
    "Evaluation": ("core.evaluation", "Evaluation"),
    "RunMetadata": ("loaders", "RunMetadata"),
    "annotate_run": ("loaders", "annotate_run"),
    "attach_export": ("sharing", "attach_export"),
    "export_parquet": ("sharing", "export_parquet"),
    "publish": ("sharing", "publish"),
    "snapshot": ("sharing", "snapshot"),
    "sqlalchemy_url": ("sharing", "sqlalchemy_url"),
    "evaluate": ("core.evaluation", "evaluate"),
    "define_gain_profile": ("core.gains", "define_gain_profile"),
    "LoadReport": ("loaders", "LoadReport"),
    "load_campaign": ("loaders", "load_campaign"),
    "load_doclengths": ("loaders", "load_doclengths"),
    "load_intents": ("loaders", "load_intents"),
    "load_qrels": ("loaders", "load_qrels"),
    "load_run": ("loaders", "load_run"),
    "load_runs": ("loaders", "load_runs"),
    "load_topics": ("loaders", "load_topics"),
    "load_nuggets": ("loaders", "load_nuggets"),
    "load_answers": ("loaders", "load_answers"),
    "load_assignments": ("loaders", "load_assignments"),
    "load_support": ("loaders", "load_support"),
    "parse_measure": ("measures", "parse_measure"),
    "connect": ("storage.warehouse", "connect"),
    "set_memory_limit": ("storage.resources", "set_memory_limit"),
    "significance": ("resampling", "significance"),
    "discriminative_power": ("resampling", "discriminative_power"),
    "compare": ("resampling", "compare"),
    "calc_aggregate": ("interop", "calc_aggregate"),
    "iter_calc": ("interop", "iter_calc"),
    "calc": ("interop", "calc"),
    "evaluator": ("interop", "evaluator"),
    "calc_aggregate_many": ("interop", "calc_aggregate_many"),
    "calc_many": ("interop", "calc_many"),
}


def _version() -> str:
    """The installed distribution's version, looked up on first use (the lookup scans sys.path's
    package metadata: 2 ms of every command's start-up otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyeval")
    except PackageNotFoundError:  # a checkout that was not installed
        return "0+unknown"


_lazy_attribute = lazy_attributes(__name__, _LAZY)


def __getattr__(name: str):
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    return _lazy_attribute(name)


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "DataIntegrityError",
    "Evaluation",
    "InputFormatError",
    "LoadReport",
    "PyevalError",
    "PyevalWarning",
    "RunMetadata",
    "SchemaVersionError",
    "UnknownCampaignError",
    "__version__",
    "annotate_run",
    "attach_export",
    "calc",
    "calc_aggregate",
    "calc_aggregate_many",
    "calc_many",
    "compare",
    "connect",
    "define_gain_profile",
    "discriminative_power",
    "evaluator",
    "evaluate",
    "export_parquet",
    "iter_calc",
    "load_answers",
    "load_assignments",
    "load_campaign",
    "load_doclengths",
    "load_intents",
    "load_nuggets",
    "load_qrels",
    "load_run",
    "load_runs",
    "load_support",
    "load_topics",
    "parse_measure",
    "publish",
    "set_memory_limit",
    "snapshot",
    "sqlalchemy_url",
]

# The evaluation engines register with pyeval.core.engine, the Python family drivers with
# pyeval.family_drivers (a few light modules: each one's heavy imports wait for its first call).
from . import drivers as _drivers  # noqa: E402,F401
from . import engines as _engines  # noqa: E402,F401
