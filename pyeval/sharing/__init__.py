"""Sharing a warehouse with BI tools and other databases (docs/bi.md): its SQLAlchemy URL and
read-only snapshots (:mod:`.snapshot`), Parquet exports and reading them back (:mod:`.export`),
and publishing to PostgreSQL (:mod:`.publish`).

DuckDB lets one process write a file and no other process open it meanwhile, so dashboards
read a copy: a snapshot file, a Parquet tree or a PostgreSQL database. Every copy is taken
inside one transaction, so it shows whole evaluations only.
"""
from __future__ import annotations

from pyeval.storage.public import PUBLIC_TABLES

from .common import quote_identifier
from .export import EXPORT_FORMAT, MANIFEST, ExportReport, attach_export, digest_folder, export_parquet, export_tables, read_manifest
from .publish import (
    CAMPAIGN_INPUT_TABLES,
    EVALUATION_TABLES,
    MATERIALIZED_VIEWS,
    PORTABLE_VIEWS,
    PUBLICATIONS_TABLE,
    PublishReport,
    publish,
)
from .snapshot import SnapshotReport, snapshot, sqlalchemy_url

__all__ = [
    "CAMPAIGN_INPUT_TABLES", "EVALUATION_TABLES", "EXPORT_FORMAT", "MANIFEST", "MATERIALIZED_VIEWS",
    "PORTABLE_VIEWS", "PUBLICATIONS_TABLE", "PUBLIC_TABLES", "ExportReport", "PublishReport",
    "SnapshotReport", "attach_export", "digest_folder", "export_parquet", "export_tables",
    "publish", "quote_identifier", "read_manifest", "snapshot", "sqlalchemy_url",
]
