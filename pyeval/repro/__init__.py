"""Reproducibility and longitudinal evaluation (issue 42; docs/reproducibility.md): repro_eval's
measures between an original and a reproduced pair of runs (:func:`reproduce`), CLEF LongEval's
evaluation of systems across the snapshots of a changing collection (:func:`longitudinal`), and
the run relations and ir-metadata documents they read (:mod:`pyeval.repro.relations`)."""
from __future__ import annotations

from .experiment import ReproResult, reproduce
from .longitudinal import LongitudinalResult, longitudinal
from .relations import load_ir_metadata, record_relation, record_snapshot

__all__ = ["LongitudinalResult", "ReproResult", "load_ir_metadata", "longitudinal", "record_relation",
           "record_snapshot", "reproduce"]
