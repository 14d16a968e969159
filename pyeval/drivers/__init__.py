"""The Python family drivers (ndeval's family, the U-measures), registered with
pyeval.family_drivers as function objects when ``pyeval`` is imported. Each entry below imports
its module (numpy, pandas) on its first call, so that registering costs no start-up time.
"""
from __future__ import annotations

from pyeval.family_drivers import register_driver


def ndeval(con, measures, request):
    """ndeval's family: :func:`pyeval.drivers.ndeval.compute`."""
    from .ndeval import compute

    return compute(con, measures, request)


def umeasure(con, measures, request):
    """The U-measures' family: :func:`pyeval.drivers.umeasure.compute`."""
    from .umeasure import compute

    return compute(con, measures, request)


register_driver("ndeval", ndeval)
register_driver("umeasure", umeasure)
