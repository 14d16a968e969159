"""Importing this module registers every measure (the registry imports it on first use)."""
from . import adhoc  # noqa: F401
