"""Public names of a package imported on first use (PEP 562), so that a command imports only the
modules it needs (docs/benchmarks.md: the commands' start-up)."""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(package: str, names: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``names`` maps each public name to the module
    of the package that defines it (relative, e.g. ``"core.evaluation"``) and its name there;
    the first use imports it and keeps it in the package's namespace."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = names[name]
        value = getattr(import_module(f".{module}", package), attribute)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
