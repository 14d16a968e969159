"""Any campaign id exports and comes back: ids whose Hive folder name would be too long for a
file name go to a folder named by their sha256 (pyeval/sharing/export.py, docs/bi.md)."""
from __future__ import annotations

import json

import duckdb
import pandas as pd

import pyeval
from pyeval import sharing

from .helpers import QRELS, RUN, cli

LONG = "x" * 300  # 300 bytes: campaign_id=<id> is over the 255-byte limit of a file name
SLASHED = "é/" * 100  # 300 bytes of UTF-8 with slashes
IDS = ("c", "a/b", LONG, SLASHED)


def test_a_300_byte_campaign_id_exports_and_attaches_with_its_id_intact(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    for campaign in IDS:
        pyeval.load_qrels(con, campaign, QRELS)
        pyeval.load_run(con, campaign, RUN, name="a")
        pyeval.evaluate(con, campaign, ["AP"])
    con.close()
    target = tmp_path / "export"
    status, output = cli("--db", path, "export", "--parquet", target)
    assert status == 0, output
    manifest = json.loads((target / "manifest.json").read_text())
    files = manifest["tables"]["topic_scores"]["files"]
    assert len(files) == len(IDS)
    digested = {entry["campaign_id"]: entry["path"] for entry in files if "campaign_id" in entry}
    assert set(digested) == {LONG, SLASHED}
    assert digested[LONG] == f"topic_scores/{sharing.digest_folder(LONG)}/data_0.parquet"
    assert all(len(part.encode()) <= 255 for entry in files for part in entry["path"].split("/"))

    source = pyeval.connect(path, read_only=True)
    attached = sharing.attach_export(target)
    for table in sharing.PUBLIC_TABLES:
        query = f"select * from {table} order by all"
        assert attached.execute(query).fetchall() == source.execute(query).fetchall(), table
    assert sorted(r[0] for r in attached.execute("select campaign_id from campaigns").fetchall()) == sorted(IDS)
    attached.close()
    source.close()
    status, output = cli("attach", target, "select count(distinct campaign_id) as n from scores", "--format", "csv")
    assert status == 0 and output.splitlines() == ["n", str(len(IDS))], output

    # other readers get the real ids from the files
    glob = str(target / "topic_scores" / "**" / "*.parquet")
    read = {r[0] for r in duckdb.sql("select distinct campaign_id from read_parquet($g)", params={"g": glob}).fetchall()}
    assert read == set(IDS)
    frame = pd.read_parquet(target / "campaigns", partitioning=None)
    assert set(frame["campaign_id"]) == set(IDS)

    # an export with digest folders is pyeval's own: --replace replaces it
    status, output = cli("--db", path, "export", "--parquet", target, "--replace")
    assert status == 0, output
    replaced = sharing.read_manifest(target)["tables"]["topic_scores"]
    assert replaced["rows"] == manifest["tables"]["topic_scores"]["rows"]
