"""Ad-hoc SQL over a warehouse (``pyeval sql``) and the overview tables (``pyeval list``)."""
from __future__ import annotations

import duckdb
import pandas as pd

from .errors import QueryError


def run_sql(con: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
    """Run one user statement; a query's rows come back as a DataFrame.

    Raises
    ------
    QueryError
        DuckDB refused the statement (syntax, unknown table, ...): a user mistake.
    """
    try:
        result = con.execute(sql)
        return result.df()
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0]) from exc


def campaign_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per campaign with its counts (the public view ``campaign_overview``)."""
    return con.execute("select * from campaign_overview order by campaign_id").df()


def run_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per run with its size and provenance (the public view ``run_overview``)."""
    return con.execute(
        "select campaign_id, run_id, run_tag, topics, entries, source_file "
        "from run_overview order by campaign_id, run_id"
    ).df()
