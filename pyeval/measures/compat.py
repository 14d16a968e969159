"""Compat: Clarke, Vtyurina and Smucker's compatibility measure, as ir_measures computes it.
Computed by sql/metrics/metric_compat.sql (formulas in its header)."""
from __future__ import annotations

from .base import MeasureDef, Param
from .registry import register

register(
    MeasureDef("Compat", "compat",
               "compatibility: rank-biased overlap of the ranking with the ideal ranking of the "
               "relevant documents (by level, then the run's score), over the ideal ranking's own "
               "overlap (normalize=True) or over sum of p^(i-1) to the deeper of the two",
               "Clarke, Vtyurina & Smucker, TOIS 2021 (Assessing top-k preferences); ir_measures Compat",
               params=(Param("p", float, 0.95, "persistence of the rank-biased overlap", minimum=0, maximum=1,
                             open_minimum=True),
                       Param("normalize", bool, True, "divide by the ideal ranking's overlap with itself "
                             "(for finite ideal rankings)"))),
)
