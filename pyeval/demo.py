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
from .evaluation import Evaluation, evaluate
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

#: The ad hoc measures the demo evaluates and stores (issue 3's metric engine).
DEMO_MEASURES = ["AP", "nDCG@10", "nDCG(gain=exp)@10", "P@10", "RR", "Bpref", "infAP", "R@100", "NumRet(rel=1)"]

EXAMPLE_QUERY = """\
-- topics on which each run beats the Indri query-likelihood baseline on nDCG@10
select run.run_id,
       count(*) filter (where run.value > base.value) as wins,
       count(*) filter (where run.value < base.value) as losses
from scores as run
join scores as base
  on base.campaign_id = run.campaign_id and base.topic_id = run.topic_id
 and base.measure = run.measure and base.run_id = 'indri-ql'
where run.campaign_id = 'web2012-adhoc' and run.measure = 'nDCG@10'
  and run.run_id <> 'indri-ql'
group by run.run_id
order by wins desc, run.run_id
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


def build_demo(path: str | Path) -> Evaluation:
    """Build the demo warehouse at ``path`` (three campaigns, 20 runs each) and evaluate the ad
    hoc campaign (stored); returns that evaluation."""
    con = warehouse.connect(path)
    try:
        for campaign, (qrels, intents, description) in DEMO_CAMPAIGNS.items():
            load_qrels(con, campaign, sample.path(qrels), description=description)
            if intents:
                load_intents(con, campaign, sample.path(intents))
            runs = sample.run_paths()
            load_runs(con, campaign, runs, names=[sample.run_name(p) for p in runs])
            load_doclengths(con, campaign, sample.path("doclengths.txt.gz"))
        return evaluate(con, "web2012-adhoc", DEMO_MEASURES)
    finally:
        con.close()


def topic_count(con) -> int:
    return first_row(con, "select count(*) from topics where campaign_id = 'web2012-adhoc'")[0]


def run_demo(out: str | Path, echo: Callable[[str], None] = print) -> None:
    """Build the demo warehouse at ``out`` and print what it holds."""
    out = Path(out)
    _prepare(out)
    started = time.perf_counter()
    evaluation = build_demo(out)
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
        table = evaluation.wide().sort_values("AP", ascending=False).reset_index()
        echo(
            f"\nAd hoc evaluation of web2012-adhoc, stored as evaluation {evaluation.evaluation_id} "
            f"(means over {topic_count(con)} topics, NumRet(rel=1) summed; the top 8 by AP):"
        )
        echo(render(table.head(8)))
        echo("\nAn ad-hoc query over the stored scores:")
        echo(EXAMPLE_QUERY)
        echo(render(run_sql(con, EXAMPLE_QUERY)))
        echo(f'\nTry: pyeval --db {out} sql "select * from campaign_overview"')
    finally:
        con.close()
