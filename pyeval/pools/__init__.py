"""Pools, coverage and leave-one-group-out: how reusable a test collection is (docs/pools.md).

- :func:`build`, :func:`export`, :func:`documents`, :func:`pools_frame` (pyeval/pools/build.py):
  pools as stored objects, depth-k or sampled by rank strata, and the file assessors receive;
- :func:`coverage`, :func:`coverage_summary`, :func:`unique_relevant` (pyeval/pools/coverage.py);
- :func:`link_judgments` (pyeval/pools/judged.py): a judged pool's set linked to its pool;
- :func:`leave_out` (pyeval/pools/leave_out.py): leave-one-team-out (or run-out) judgment sets,
  the runs evaluated under them, NIST's summary columns and the ranking agreement.
"""
from __future__ import annotations

from .build import DEFAULT_SEED, Stratum, build, documents, export, parse_stratum, pools_frame
from .coverage import coverage, coverage_summary, unique_documents, unique_relevant
from .judged import link_judgments
from .leave_out import LeaveOut, leave_out

__all__ = ["DEFAULT_SEED", "LeaveOut", "Stratum", "build", "coverage", "coverage_summary", "documents", "export",
           "leave_out", "link_judgments", "parse_stratum", "pools_frame", "unique_documents", "unique_relevant"]
