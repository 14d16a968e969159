"""The Python family drivers (ndeval's family, the U-measures), registered with
pyeval.family_drivers as function objects when ``pyeval`` is imported. Each entry below imports
its module (numpy, pandas) on its first call, so that registering costs no start-up time. (The
entries are not named after their modules: importing ``pyeval.drivers.ndeval`` would make the
package's ``ndeval`` that module.)
"""
from __future__ import annotations

from pyeval.family_drivers import register_driver


def compute_ndeval(con, measures, request):
    """ndeval's family: :func:`pyeval.drivers.ndeval.compute`."""
    from .ndeval import compute

    return compute(con, measures, request)


def compute_umeasure(con, measures, request):
    """The U-measures' family: :func:`pyeval.drivers.umeasure.compute`."""
    from .umeasure import compute

    return compute(con, measures, request)


register_driver("ndeval", compute_ndeval)
register_driver("umeasure", compute_umeasure)
