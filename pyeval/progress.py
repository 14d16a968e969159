"""Progress bars of long work (loads of many files, resampling, MEM, fusion grids), through
``tqdm.auto``: a widget in a Jupyter kernel with ipywidgets, text on stderr elsewhere (a kernel
without ipywidgets too, without tqdm's warning about it).

One rule decides whether a bar is shown (:func:`shown`): a call's ``progress=True/False``; else
the process's choice (:func:`set_default`, the CLI's ``--progress/--no-progress``); else on
where a human watches (stderr a terminal, or a Jupyter kernel) and off when piped. A bar
appears only after :data:`DELAY` seconds, so short work prints nothing.
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable
from typing import Any

#: Seconds of work before a bar appears (short work prints nothing).
DELAY = 2.0

#: The process's choice when a call gives none (:func:`set_default`); None: where it runs decides.
_default: bool | None = None


def set_default(progress: bool | None) -> None:
    """Show progress (True), never (False), or as where the process runs decides (None) in
    every call that does not say (``pyeval --progress/--no-progress``)."""
    global _default
    _default = None if progress is None else bool(progress)


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (ipykernel loaded and IPython's shell one of its
    kernel's)."""
    if "ipykernel" not in sys.modules:
        return False
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return getattr(shell, "kernel", None) is not None


def _watched(stream: Any) -> bool:
    """Whether a human sees ``stream``: a terminal."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def shown(progress: bool | None = None) -> bool:
    """Whether long work shows a progress bar: ``progress`` when given, else the process's
    default (:func:`set_default`), else whether stderr is a terminal or this is a Jupyter kernel."""
    if progress is not None:
        return bool(progress)
    if _default is not None:
        return _default
    return in_kernel() or _watched(sys.stderr)


def _tqdm_class() -> type:
    """``tqdm.auto.tqdm`` (a widget in a kernel with ipywidgets, else the text bar), imported
    without the warning tqdm gives in a kernel that lacks ipywidgets (the text bar is what it
    falls back to, and is what pyeval wants there)."""
    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)  # TqdmExperimentalWarning is one too
        from tqdm.auto import tqdm
    return tqdm


def bar(iterable: Iterable | None = None, *, progress: bool | None, total: int | None = None,
        desc: str | None = None, unit: str = "it", delay: float | None = None):
    """A tqdm bar over ``iterable`` (or, without one, to ``update`` by hand), drawn when
    :func:`shown` says so (a disabled bar otherwise: iterating it costs nothing), after
    ``delay`` seconds (default :data:`DELAY`), removed when done."""
    tqdm = _tqdm_class()
    return tqdm(iterable, total=total, desc=desc, unit=unit, delay=DELAY if delay is None else delay, leave=False,
                disable=not shown(progress), file=sys.stderr)
