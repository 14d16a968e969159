"""Pools as stored objects (docs/pools.md section 1): built in SQL (sql/pools/) from a campaign's
stored runs, depth-k per run, optionally sampled by rank strata under a per-topic budget as
NIST's make-pools.pl does (testcoll-tools, Soboroff), seeded and recorded; exported as the file
assessors receive.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import duckdb

from pyeval.core import sqlfiles
from pyeval.storage.public import use_internal_schema
from pyeval.core.db import create_rows, first_row, transaction, no_runs, unknown_campaign
from ..errors import PyevalError, already_stored, require_choice, with_command_line

ORDERINGS = ("trec", "trec-asc", "rank", "file")
DEFAULT_SEED = 20261126
#: The largest rank, depth or budget a pool takes: ranks are DuckDB INTEGERs (a depth beyond a
#: run's longest list pools the whole list, at no extra cost).
MAX_RANK = 2**31 - 1
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,99}")
_STRATUM = re.compile(r"^(\d+)(?::(\d+))?(?::(\d*\.?\d+))?$")


@dataclass(frozen=True)
class Stratum:
    """Ranks ``rank_from`` to ``rank_to`` (inclusive), drawn at ``rate`` (None: from the budget)."""

    rank_from: int
    rank_to: int
    rate: float | None = 1.0


def parse_stratum(text: str) -> Stratum:
    """make-pools.pl's ``-s`` syntax: ``DEPTH`` (= ``1:DEPTH:1``), ``FROM:TO`` (rate from the
    budget) or ``FROM:TO:RATE``."""
    match = _STRATUM.match(text.strip())
    if not match:
        raise PyevalError(f"stratum {text!r}: write DEPTH, FROM:TO or FROM:TO:RATE (e.g. 1:20:1 or 21:1500)")
    first, second, rate = match.groups()
    if second is None:
        if rate is not None:
            raise PyevalError(f"stratum {text!r}: write DEPTH, FROM:TO or FROM:TO:RATE")
        return Stratum(1, int(first), 1.0)
    stratum = Stratum(int(first), int(second), None if rate is None else float(rate))
    if stratum.rank_from < 1 or stratum.rank_to < stratum.rank_from:
        raise PyevalError(f"stratum {text!r}: ranks must satisfy 1 <= FROM <= TO")
    if stratum.rank_to > MAX_RANK:
        raise PyevalError(f"stratum {text!r}: ranks go up to {MAX_RANK}")
    if stratum.rate is not None and not 0 < stratum.rate <= 1:
        raise PyevalError(f"stratum {text!r}: the rate must be in (0, 1]")
    return stratum


def check_pool_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PyevalError(f"pool name {name!r}: use letters, digits and _ . : + - (starting with a letter or digit)")


def require_pool(con: duckdb.DuckDBPyConnection, campaign_id: str, pool_name: str) -> dict:
    """The pools row of ``pool_name`` as a dict; PyevalError naming the campaign's pools when absent."""
    row = con.execute("select * from pools where campaign_id = $c and pool_name = $p",
                      {"c": campaign_id, "p": pool_name}).fetchone()
    if row is None:
        if first_row(con, "select count(*) from campaigns where campaign_id = $c", {"c": campaign_id})[0] == 0:
            raise unknown_campaign(con, campaign_id)
        names = [r[0] for r in con.execute("select pool_name from pools where campaign_id = $c order by pool_name",
                                           {"c": campaign_id}).fetchall()]
        raise PyevalError(f"campaign '{campaign_id}' has no pool '{pool_name}'; its pools: "
                          f"{', '.join(names) or 'none (pyeval pool build)'}")
    columns = [d[0] for d in con.description]
    return dict(zip(columns, row))


def build(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    name: str,
    *,
    depth: int = 100,
    runs: Sequence[str] | None = None,
    tag: str | None = None,
    run_depths: Mapping[str, int] | None = None,
    budget: int | None = None,
    strata: Sequence[Stratum | str] = (),
    seed: int = DEFAULT_SEED,
    ordering: str = "trec",
    replace: bool = False,
) -> int:
    """Build and store the pool ``name`` of ``campaign_id``; returns its number of documents.

    Runs: ``runs``, or the runs tagged ``tag``, or every run, in pooling order (as given, else
    by name). Each run is read to ``run_depths[run]`` or ``depth`` under ``ordering``. Without
    ``strata`` every document at rank <= the run's depth is pooled (a depth-k pool, Sparck Jones
    & van Rijsbergen 1975); with strata (make-pools.pl's ``-s``) and a per-topic ``budget`` (``-b``),
    documents are drawn per stratum as docs/pools.md section 1 says, seeded by ``seed``.
    """
    check_pool_name(name)
    require_choice("ordering", ordering, ORDERINGS)
    if depth is None or not 1 <= depth <= MAX_RANK:
        raise PyevalError(f"depth must be an integer from 1 to {MAX_RANK}; got {depth}")
    if budget is not None and not 1 <= budget <= MAX_RANK:
        raise PyevalError(f"budget must be an integer from 1 to {MAX_RANK}; got {budget}")
    if not 0 <= seed < 2**63:
        raise PyevalError(f"seed must be an integer from 0 to 2^63 - 1; got {seed}")
    parsed = [s if isinstance(s, Stratum) else parse_stratum(s) for s in strata] or [Stratum(1, depth, 1.0)]
    if any(s.rate is None for s in parsed) and budget is None:
        raise with_command_line(PyevalError("a stratum without a rate (FROM:TO) draws from the budget: give budget="),
                                "a stratum without a rate (FROM:TO) draws from the budget: give --budget")
    if first_row(con, "select count(*) from campaigns where campaign_id = $c", {"c": campaign_id})[0] == 0:
        raise unknown_campaign(con, campaign_id)
    teams = dict(con.execute("select run_id, team from runs where campaign_id = $c", {"c": campaign_id}).fetchall())
    if runs and tag:
        raise PyevalError("name the runs to pool or a tag, not both")
    if tag:
        chosen = [r[0] for r in con.execute(
            "select run_id from run_tags where campaign_id = $c and tag = $t order by run_id",
            {"c": campaign_id, "t": tag}).fetchall()]
        if not chosen:
            raise PyevalError(f"campaign '{campaign_id}' has no run tagged '{tag}'")
    elif runs:
        chosen = list(dict.fromkeys(runs))
        missing = [r for r in chosen if r not in teams]
        if missing:
            raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, missing))}")
    else:
        chosen = sorted(teams)
        if not chosen:
            raise no_runs(campaign_id)
    run_depths = dict(run_depths or {})
    unknown = [r for r in run_depths if r not in chosen]
    if unknown:
        names = ', '.join(map(repr, unknown))
        raise with_command_line(PyevalError(f"run_depths names {names}, not a pooled run"),
                                f"--run-depth names {names}, not a pooled run")
    bad = {r: d for r, d in run_depths.items() if d is None or not 1 <= d <= MAX_RANK}
    if bad:
        raise PyevalError(f"depth must be an integer from 1 to {MAX_RANK}; got {bad}")
    parameters = {"runs": chosen, "tag": tag, "run_depths": run_depths, "depth": depth, "budget": budget,
                  "strata": [[s.rank_from, s.rank_to, s.rate] for s in parsed], "seed": seed, "ordering": ordering}
    from .. import __version__

    keys = {"c": campaign_id, "p": name}
    with transaction(con):
        if first_row(con, "select count(*) from pools where campaign_id = $c and pool_name = $p", keys)[0]:
            if not replace:
                raise already_stored(f"campaign '{campaign_id}' already has pool '{name}'", them=False)
            for table in ("pool_coverage", "pool_leave_out", "pool_leave_out_rankings", "pool_documents",
                          "pool_runs", "pools"):
                con.execute(f"delete from {table} where campaign_id = $c and pool_name = $p", keys)
        create_rows(con, "new_pool_runs", {"run_id": "varchar", "depth": "integer", "run_position": "integer"},
                    [(run, int(run_depths.get(run, depth)), position) for position, run in enumerate(chosen, 1)])
        con.execute("insert into pool_runs (campaign_id, pool_name, run_id, team, depth, run_position) "
                    "select $c, $p, new_pool_runs.run_id, runs.team, new_pool_runs.depth, new_pool_runs.run_position "
                    "from new_pool_runs join runs on runs.campaign_id = $c and runs.run_id = new_pool_runs.run_id",
                    keys)
        con.execute("drop table new_pool_runs")
        create_rows(con, "pool_strata", {"stratum": "integer", "rank_from": "integer", "rank_to": "integer",
                                         "rate": "double"},
                    [(i, s.rank_from, s.rank_to, s.rate) for i, s in enumerate(parsed, 1)])
        try:
            settings = {"campaign_id": campaign_id, "pool_name": name, "ordering": ordering, "budget": budget,
                        "seed": seed}
            use_internal_schema(con)  # pool_candidates reads ranked_entries; con may be a cursor
            _stage(con, "pools/pool_candidates.sql", "pool_candidates", settings)
            if budget is None and all(s.rate == 1 for s in parsed):  # nothing is drawn: every candidate
                con.execute("alter table pool_candidates rename to pool_selected")
            else:
                con.execute("create or replace temp table pool_selected as select * from pool_candidates limit 0")
                for stratum in range(1, len(parsed) + 1):
                    _stage(con, "pools/pool_sample_stratum.sql", "pool_stratum_drawn",
                           {**settings, "stratum": stratum})
                    con.execute("insert into pool_selected select * from pool_stratum_drawn")
            documents = first_row(con, "select count(*) from pool_selected")[0]
            if not documents:
                raise PyevalError(f"pool '{name}' would hold no document (do the runs retrieve anything?); "
                                  "nothing stored")
            con.execute("insert into pool_documents (campaign_id, pool_name, topic_id, doc_id, best_rank, stratum, "
                        "first_run, runs, teams) select $c, $p, topic_id, doc_id, best_rank, stratum, first_run, "
                        "runs, teams from pool_selected", keys)
            con.execute("insert into pools (campaign_id, pool_name, ordering, depth, budget, strata, seed, "
                        "parameters, documents, pyeval_version) values ($c, $p, $o, $d, $b, $s, $seed, $params, "
                        "$n, $v)",
                        {**keys, "o": ordering, "d": depth, "b": budget,
                         "s": json.dumps(parameters["strata"]), "seed": seed, "params": json.dumps(parameters),
                         "n": documents, "v": __version__})
        finally:
            for table in ("pool_strata", "pool_candidates", "pool_selected", "pool_stratum_drawn"):
                con.execute(f"drop table if exists {table}")
    return int(documents)


def _stage(con: duckdb.DuckDBPyConnection, path: str, table: str, settings: dict) -> None:
    """Materialise the select of ``sql/<path>`` as the temporary table ``table``."""
    con.execute(f"create or replace temp table {table} as\n" + sqlfiles.read(path),
                sqlfiles.model(path).bind(settings))


def documents(con: duckdb.DuckDBPyConnection, campaign_id: str, name: str):
    """The pool's documents (``topic_id, doc_id, best_rank, stratum, first_run, runs, teams``)."""
    require_pool(con, campaign_id, name)
    return con.execute(
        "select topic_id, doc_id, best_rank, stratum, first_run, runs, teams from pool_documents "
        "where campaign_id = $c and pool_name = $p order by topic_id, best_rank, doc_id",
        {"c": campaign_id, "p": name}).df()


def export(con: duckdb.DuckDBPyConnection, campaign_id: str, name: str, path: str, *, replace: bool = False) -> int:
    """Write the pool as the file assessors receive: ``topic 0 docno -1`` (qrels layout, level -1
    = not yet judged), one block per topic (topics in numeric order when numeric, else by
    name), documents by docno so that the order tells the assessor nothing of the ranks.
    ``path`` is a new file, or with ``replace`` an existing regular file; never the warehouse, a
    link, a device or a FIFO (:func:`pyeval.storage.ownership.write_output`). Returns the number
    of lines."""
    from pyeval.storage.ownership import write_output

    require_pool(con, campaign_id, name)
    rows = con.execute(
        "select topic_id, doc_id from pool_documents where campaign_id = $c and pool_name = $p "
        "order by try_cast(topic_id as bigint) nulls last, topic_id, doc_id",
        {"c": campaign_id, "p": name}).fetchall()
    write_output(con, path, "pool file", "".join(f"{topic} 0 {doc} -1\n" for topic, doc in rows), replace=replace)
    return len(rows)


POOLS_QUERY = (
    "select pools.campaign_id, pools.pool_name, ordering, depth, budget, strata, seed, documents, "
    "(select count(*) from pool_runs where pool_runs.campaign_id = pools.campaign_id "
    "and pool_runs.pool_name = pools.pool_name) as runs, created_at, "
    "(select list(judgment_set order by judgment_set) from judgment_sets where judgment_sets.campaign_id = "
    "pools.campaign_id and judgment_sets.derivation is null and (judgment_sets.parameters::json ->> 'pool') = "
    "pools.pool_name) as judged_as from pools "  # ->> in parentheses: DuckDB 1.x binds = tighter
    "where $c is null or pools.campaign_id = $c order by pools.campaign_id, pools.pool_name")


def pool_names(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[str]:
    """The campaign's pools, by name."""
    return [r[0] for r in con.execute("select pool_name from pools where campaign_id = $c order by pool_name",
                                      {"c": campaign_id}).fetchall()]


def pools_frame(con: duckdb.DuckDBPyConnection, campaign_id: str | None = None):
    """The stored pools with their parameters and sizes."""
    return con.execute(POOLS_QUERY, {"c": campaign_id}).df()
