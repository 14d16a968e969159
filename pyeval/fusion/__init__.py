"""Run fusion as stored, derived runs (issue 29; docs/fusion.md): the methods and every
convention as a :class:`Recipe`, computed in SQL (sql/fusion/), stored with the recipe and the
parents, and parameter grids evaluated in one pass.

>>> frame = pyeval.fusion.fuse(con, "c", ["bm25", "dense"], "rrf", k=60, name="hybrid")
"""
from .recipe import METHODS, NORMS, Recipe
from .grid import GridResult, OverfittingWarning, evaluate_grid, parse_grid
from .store import delete_run, derived_runs, export_run, fuse, refresh

__all__ = ["METHODS", "NORMS", "GridResult", "OverfittingWarning", "Recipe", "evaluate_grid", "parse_grid", "delete_run", "derived_runs", "export_run", "fuse", "refresh"]
