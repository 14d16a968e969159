"""``pyeval demo``: build a warehouse from the bundled sample campaign and show what it holds.

Each capability adds its step here, so the demo always shows the whole product.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from . import sample, warehouse
from .db import first_row
from .errors import PyevalError
from .loaders import load_doclengths, load_intents, load_qrels, load_runs
from .output import render
from .query import campaign_overview, run_overview, run_sql

#: campaign -> (qrels file, intents file or None, description)
DEMO_CAMPAIGNS = {
    "web2012": (
        "qrels.diversity.txt.gz",
        "intents.uniform.txt",
        "TREC 2012 Web track diversity (NIST qrels), uniform intent probabilities",
    ),
    "web2012-nonuniform": (
        "qrels.diversity.txt.gz",
        "intents.nonuniform.txt",
        "TREC 2012 Web track diversity, Sakai & Song's non-uniform intent probabilities",
    ),
    "web2012-adhoc": (
        "qrels.adhoc.txt.gz",
        None,
        "TREC 2012 Web track ad hoc (NIST qrels.adhoc)",
    ),
}

EXAMPLE_QUERY = """\
-- precision at 10 under trec_eval's order (score desc, docno desc), by plain SQL
with ranked as (
    select *, row_number() over (partition by campaign_id, run_id, topic_id
                                 order by score desc, doc_id desc) as rank
    from run_entries
    where campaign_id = 'web2012-adhoc'
)
select ranked.run_id,
       count(*) filter (where qrels.level > 0)
       / (10 * (select count(*) from topics where campaign_id = 'web2012-adhoc')) as p_at_10
from ranked
left join qrels using (campaign_id, topic_id, doc_id)
where ranked.rank <= 10
group by ranked.run_id
order by p_at_10 desc
limit 5"""


def _prepare(out: Path) -> None:
    """Remove a previous demo warehouse; refuse to touch any other file."""
    if not out.exists():
        return
    try:
        con = warehouse.connect(out, read_only=True)
    except PyevalError as exc:
        raise PyevalError(f"{out} exists and is not a pyeval demo warehouse; choose --out") from exc
    try:
        names = {row[0] for row in con.execute("select campaign_id from campaigns").fetchall()}
    finally:
        con.close()
    if not names <= set(DEMO_CAMPAIGNS):
        raise PyevalError(f"{out} holds campaigns other than the demo's; choose another --out")
    out.unlink()


def build_demo(path: str | Path) -> None:
    """Build the demo warehouse at ``path`` (three campaigns, 20 runs each)."""
    con = warehouse.connect(path)
    try:
        for campaign, (qrels, intents, description) in DEMO_CAMPAIGNS.items():
            load_qrels(con, campaign, sample.path(qrels), description=description)
            if intents:
                load_intents(con, campaign, sample.path(intents))
            runs = sample.run_paths()
            load_runs(con, campaign, runs, names=[sample.run_name(p) for p in runs])
            load_doclengths(con, campaign, sample.path("doclengths.txt.gz"))
    finally:
        con.close()


def run_demo(out: str | Path, echo: Callable[[str], None] = print) -> None:
    """Build the demo warehouse at ``out`` and print what it holds."""
    out = Path(out)
    _prepare(out)
    started = time.perf_counter()
    build_demo(out)
    elapsed = time.perf_counter() - started
    con = warehouse.connect(out, read_only=True)
    try:
        echo(f"Built {out} in {elapsed:.1f} s from the bundled TREC 2012 Web track sample.\n")
        echo("Campaigns:")
        echo(render(campaign_overview(con).drop(columns=["source_campaign_id", "created_at"])))
        runs = run_overview(con)
        echo(f"\nRuns ({len(runs)} in all; the first three of each campaign):")
        echo(render(runs.groupby("campaign_id").head(3).drop(columns=["source_file"])))
        nav = first_row(con, "select count(*) from intents where campaign_id = 'web2012' and intent_type = 'nav'")[0]
        echo(f"\nIntents of web2012: {nav} navigational, the rest informational.")
        echo("\nAn ad-hoc query over the stored tables:")
        echo(EXAMPLE_QUERY)
        echo(render(run_sql(con, EXAMPLE_QUERY)))
        echo(f'\nTry: pyeval --db {out} sql "select * from campaign_overview"')
    finally:
        con.close()
