"""``pyeval demo``: build a warehouse from the bundled sample campaign and show what it holds.

Each capability adds its step here, so the demo always shows the whole product.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from . import ownership, sample, warehouse
from .db import first_row, transaction
from .errors import NotOwnedError, PyevalError
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

#: The headline measures whose discriminative power the demo computes (issue 7: paired
#: bootstrap test, B = 1000, seed 0, over the 190 pairs of the 20 runs; seed 000's setting).
DISCPOWER_MEASURES = ["AP", "nDCG@10", "P@10", "RR"]

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
    """Remove a previous demo warehouse: a file that carries the demo's marker
    (pyeval.ownership.DEMO_MARKER) and only the demo's campaigns; refuse to touch any other."""
    if not out.exists() and not out.is_symlink():
        return
    refusal = f"{out} exists and is not a warehouse pyeval demo built; pyeval leaves it alone (choose another --out)"
    if out.is_symlink():
        raise NotOwnedError(refusal)
    try:
        found, marker = ownership.probe_warehouse_file(out)
    except NotOwnedError as exc:
        raise NotOwnedError(refusal) from exc
    if found is not ownership.Ownership.PYEVAL or marker != ownership.DEMO_MARKER:
        raise NotOwnedError(refusal)
    con = warehouse.connect(out, read_only=True)
    try:
        names = {row[0] for row in con.execute("select campaign_id from campaigns").fetchall()}
    finally:
        con.close()
    if not names <= set(DEMO_CAMPAIGNS):
        raise NotOwnedError(f"{out} holds campaigns other than the demo's; choose another --out")
    out.unlink()


def build_demo(path: str | Path) -> Evaluation:
    """Build the demo warehouse at ``path`` (three campaigns, 20 runs each) and evaluate the ad
    hoc campaign (stored); returns that evaluation."""
    con = warehouse.connect(path)
    try:
        with transaction(con):
            ownership.mark(con, ownership.DEMO_MARKER)
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


def asl_plot_path(out: Path) -> Path:
    """Where the demo saves its ASL-curve plot: next to the warehouse, ``<stem>-asl-curves.png``."""
    return out.with_name(f"{out.stem}-asl-curves.png")


def demo_discriminative_power(path: str | Path, plot: Path):
    """Discriminative power of :data:`DISCPOWER_MEASURES` on web2012-adhoc (bootstrap, B = 1000,
    stored), with the ASL curves saved to ``plot``."""
    from .resampling import discriminative_power

    con = warehouse.connect(path)
    try:
        power = discriminative_power(con, "web2012-adhoc", DISCPOWER_MEASURES, "bootstrap", replicates=1000, seed=0)
    finally:
        con.close()
    power.plot(plot)
    return power


#: The diversity measures the demo evaluates and stores on web2012 (issue 5; seed 000's l = 10).
DIVERSITY_MEASURES = [
    "IRec@10", "D_nDCG@10", "Dsharp_nDCG@10", "D_Q@10", "Dsharp_Q@10", "DIN_nDCG@10",
    "DINsharp_nDCG@10", "PplusQsharp@10", "IA_nDCG@10", "EfP@10",
]


def irec_plot_path(out: Path) -> Path:
    """Where the demo saves its I-rec vs D-nDCG plot: ``<stem>-irec-dndcg.png``."""
    return out.with_name(f"{out.stem}-irec-dndcg.png")


def demo_diversity(path: str | Path, plot: Path) -> Evaluation:
    """Evaluate :data:`DIVERSITY_MEASURES` on web2012 (stored) and save the seed 000 Fig. 3 plot:
    every run's mean I-rec@10 (x) against its mean D-nDCG@10 (y), with the contour lines of
    D#-nDCG@10 = (I-rec + D-nDCG)/2 (gamma = 0.5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    con = warehouse.connect(path)
    try:
        evaluation = evaluate(con, "web2012", DIVERSITY_MEASURES)
    finally:
        con.close()
    table = evaluation.wide()
    figure, axes = plt.subplots(figsize=(6, 5))
    grid = np.linspace(0, 1, 101)
    x, y = np.meshgrid(grid, grid)
    contours = axes.contour(x, y, 0.5 * x + 0.5 * y, levels=np.arange(0.1, 1.0, 0.1), colors="grey",
                            linestyles="dotted", linewidths=0.8)
    axes.clabel(contours, fmt="D#=%.1f", fontsize=7)
    axes.scatter(table["IRec@10"], table["D_nDCG@10"], s=18)
    for run_id, row in table.iterrows():
        axes.annotate(run_id, (row["IRec@10"], row["D_nDCG@10"]), fontsize=6, xytext=(3, 2),
                      textcoords="offset points")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("I-rec@10")
    axes.set_ylabel("D-nDCG@10")
    axes.set_title("web2012 (uniform): I-rec vs D-nDCG, D#-nDCG contours")
    figure.tight_layout()
    figure.savefig(plot, dpi=120)
    plt.close(figure)
    return evaluation


#: NTCIR and seed-paper ad hoc measures the demo evaluates and stores on web2012-adhoc (issue 4):
#: Q-measure and its cutoff form, P-plus, R-measure, the Jarvelin-Kekalainen nDCG, NTCIREVAL's
#: ERR and nERR, nGAP, and Q under the seed-001 steep and (per-topic) adjust gain assignments.
NTCIR_MEASURES = ["Q", "Q@10", "PPlus", "RMeasure", "JKnDCG@10", "ERR(stop=ntcir)@10",
                  "nERR(stop=ntcir)@10", "nGAP@10", "Q(gain=steep)", "Q(gain=adjust)"]


def demo_ntcir(path: str | Path) -> Evaluation:
    """Evaluate :data:`NTCIR_MEASURES` on web2012-adhoc (stored)."""
    con = warehouse.connect(path)
    try:
        return evaluate(con, "web2012-adhoc", NTCIR_MEASURES)
    finally:
        con.close()


#: The ndeval family and the U-measures the demo evaluates and stores on web2012 (issue 6):
#: TREC 2012's official alpha-nDCG@20 and ERR-IA@20 family (weights: the campaign's uniform
#: intent probabilities), and U-IA / D-U at l = 10 on the sample's document lengths.
NDEVAL_MEASURES = ["alpha_nDCG@20", "ERR_IA@20", "nERR_IA@20", "NRBP", "AP_IA", "P_IA@20", "StRecall@20",
                   "U_IA@10", "D_U@10"]


def demo_ndeval(path: str | Path) -> Evaluation:
    """Evaluate :data:`NDEVAL_MEASURES` on web2012 (stored): the Python-driven families."""
    con = warehouse.connect(path)
    try:
        return evaluate(con, "web2012", NDEVAL_MEASURES)
    finally:
        con.close()


#: The concordance matrix of the demo (issue 8; seed 003 Table 6, seed 004 Table 2): diversity
#: measures at l = 10 against intent recall and effective precision on web2012. Each entry lists
#: the spellings the registry may use; measures the registry does not (yet) have are skipped.
CONCORDANCE_MEASURES = {
    "D#-nDCG": ("Dsharp_nDCG@10", "D#-nDCG@10"),
    "DIN#-nDCG": ("DINsharp_nDCG@10", "DIN#-nDCG@10"),
    "P+Q#": ("PplusQsharp@10", "P+Q#@10"),
    "alpha-nDCG": ("alpha_nDCG@10", "alpha-nDCG@10"),
    "ERR-IA": ("ERR-IA@10", "ERR_IA@10"),
    "U-IA": ("U-IA", "U_IA", "U-IA@10"),
}
CONCORDANCE_GOLDS = {"I-rec": ("IRec@10", "I-rec@10"), "Ef-P": ("EfP@10", "Ef-P@10")}
#: Ad hoc stand-ins while fewer than two diversity measures (or no gold standard) exist.
CONCORDANCE_FALLBACK = (["AP", "Q", "nDCG@10", "RR"], ["P@10"])


def registered(spellings) -> str | None:
    """The canonical name of the first spelling the measure registry knows, else None."""
    from .measures import parse_measures

    for text in spellings:
        try:
            parsed = parse_measures(text)
        except PyevalError:
            continue
        if len(parsed) == 1:
            return str(parsed[0])
    return None


def demo_concordance(path: str | Path):
    """Concordance matrix of :data:`CONCORDANCE_MEASURES` against I-rec, Ef-P and both on
    web2012 (measures evaluated and stored if needed), with whatever of them the registry has;
    with fewer than two of them (or no gold standard) the ad hoc stand-ins of
    :data:`CONCORDANCE_FALLBACK` on web2012-adhoc. Returns (result, campaign, missing labels)."""
    from .resampling import concordance
    from .resampling.matrix import scored_runs

    found = {label: registered(spellings) for label, spellings in CONCORDANCE_MEASURES.items()}
    golds = {label: registered(spellings) for label, spellings in CONCORDANCE_GOLDS.items()}
    missing = [label for label, name in {**found, **golds}.items() if name is None]
    measures = [name for name in found.values() if name]
    gold_names = [name for name in golds.values() if name]
    con = warehouse.connect(path)
    try:
        campaign = "web2012"
        if len(measures) >= 2 and gold_names:
            wanted = [m for m in [*measures, *gold_names] if not scored_runs(con, campaign, m)]
            try:
                if wanted:
                    evaluate(con, campaign, wanted)
            except PyevalError as exc:
                missing.append(f"(evaluation on {campaign} failed: {exc})")
                measures = []
        if len(measures) < 2 or not gold_names:
            campaign = "web2012-adhoc"
            measures, gold_names = CONCORDANCE_FALLBACK
            wanted = [m for m in [*measures, *gold_names] if not scored_runs(con, campaign, m)]
            if wanted:
                evaluate(con, campaign, wanted)
        result = concordance(con, campaign, measures, gold_names, each_gold=len(gold_names) == 2)
    finally:
        con.close()
    return result, campaign, missing


def topic_count(con) -> int:
    return first_row(con, "select count(*) from topics where campaign_id = 'web2012-adhoc'")[0]


def run_demo(out: str | Path, echo: Callable[[str], None] = print) -> None:
    """Build the demo warehouse at ``out`` and print what it holds."""
    out = Path(out)
    _prepare(out)
    started = time.perf_counter()
    evaluation = build_demo(out)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    ntcir = demo_ntcir(out)
    ntcir_elapsed = time.perf_counter() - started
    started = time.perf_counter()
    power = demo_discriminative_power(out, asl_plot_path(out))
    power_elapsed = time.perf_counter() - started
    started = time.perf_counter()
    diversity = demo_diversity(out, irec_plot_path(out))
    diversity_elapsed = time.perf_counter() - started
    started = time.perf_counter()
    ndeval = demo_ndeval(out)
    ndeval_elapsed = time.perf_counter() - started
    started = time.perf_counter()
    agreement, agreement_campaign, agreement_missing = demo_concordance(out)
    agreement_elapsed = time.perf_counter() - started
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
        table = ntcir.wide().sort_values("Q", ascending=False).reset_index()
        echo(
            f"\nNTCIR measures on web2012-adhoc ({ntcir_elapsed:.1f} s), stored as evaluation "
            f"{ntcir.evaluation_id} (`pyeval ntcireval` prints NTCIREVAL's own lines); the top 8 by Q:"
        )
        echo(render(table.head(8)))
        echo(
            f"\nDiscriminative power on web2012-adhoc ({power_elapsed:.1f} s): paired bootstrap test, B = 1000, "
            f"seed 0, the 190 pairs of the 20 runs, alpha = 0.05; delta = difference needed for significance:"
        )
        echo(render(power.table.drop(columns=["test", "alpha"])))
        echo(f"ASL curves saved to {asl_plot_path(out)}; stored in the tables discriminative_power and pairwise_tests.")
        irec = diversity.wide().sort_values("Dsharp_nDCG@10", ascending=False).reset_index()
        echo(
            f"\nDiversity evaluation of web2012 ({diversity_elapsed:.1f} s), stored as evaluation "
            f"{diversity.evaluation_id}: I-rec@10 vs D-nDCG@10 and their D#-nDCG@10 (gamma = 0.5), "
            f"the top 8 by D#-nDCG:"
        )
        echo(render(irec[["run_id", "IRec@10", "D_nDCG@10", "Dsharp_nDCG@10", "DIN_nDCG@10", "IA_nDCG@10",
                          "EfP@10"]].head(8)))
        echo(f"I-rec vs D-nDCG with D#-nDCG contour lines (seed 000 Fig. 3) saved to {irec_plot_path(out)}.")
        table = ndeval.wide().sort_values("alpha_nDCG@20", ascending=False).reset_index()
        echo(
            f"\nThe ndeval family and U-IA on web2012 ({ndeval_elapsed:.1f} s), stored as evaluation "
            f"{ndeval.evaluation_id} (Python drivers; `pyeval ndeval` prints ndeval's own CSV); the top 8 by "
            f"alpha-nDCG@20:"
        )
        echo(render(table.head(8)))
        echo(
            f"\nConcordance test on {agreement_campaign} ({agreement_elapsed:.1f} s; seed 003 Table 6): "
            f"conc(row)/conc(column) where the two disagree, ‡ p < 0.01, † p < 0.05 (sign test on the wins), "
            f"disagreements in parentheses:"
        )
        if agreement_missing:
            echo(f"(not in the measure registry yet: {', '.join(agreement_missing)}"
                 + ("; ad hoc stand-ins shown)" if agreement_campaign == "web2012-adhoc" else ")"))
        for gold in agreement.gold_sets:
            echo(f"gold standard {' & '.join(gold)}:")
            echo(render(agreement.matrix(gold).reset_index(names="measure")))
        echo("Stored in the table concordance_tests.")
        echo("\nAn ad-hoc query over the stored scores:")
        echo(EXAMPLE_QUERY)
        echo(render(run_sql(con, EXAMPLE_QUERY)))
        echo(f'\nTry: pyeval --db {out} sql "select * from campaign_overview"')
    finally:
        con.close()
