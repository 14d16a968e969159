"""pyeval: an SQL-backed evaluation warehouse for information retrieval, on DuckDB.

>>> import pyeval
>>> con = pyeval.connect("campaigns.duckdb")
>>> pyeval.load_qrels(con, "web2012", "qrels.diversity.txt")
>>> pyeval.load_run(con, "web2012", "run.txt", name="bm25")
>>> pyeval.evaluate(con, "web2012", ["AP", "nDCG@10"]).means
>>> con.sql("select * from scores").df()
"""
from importlib.metadata import PackageNotFoundError, version

from .errors import (
    DataIntegrityError,
    InputFormatError,
    PyevalError,
    PyevalWarning,
    SchemaVersionError,
    UnknownCampaignError,
)
from .evaluation import Evaluation, evaluate
from .gains import define_gain_profile
from .loaders import LoadReport, load_doclengths, load_intents, load_qrels, load_run, load_runs
from .measures import parse as parse_measure
from .warehouse import connect

try:
    __version__ = version("pyeval")
except PackageNotFoundError:  # a checkout that was not installed
    __version__ = "0+unknown"

__all__ = [
    "DataIntegrityError",
    "Evaluation",
    "InputFormatError",
    "LoadReport",
    "PyevalError",
    "PyevalWarning",
    "SchemaVersionError",
    "UnknownCampaignError",
    "__version__",
    "connect",
    "define_gain_profile",
    "evaluate",
    "load_doclengths",
    "load_intents",
    "load_qrels",
    "load_run",
    "load_runs",
    "parse_measure",
]
