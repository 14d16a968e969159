"""``pyeval demo``: build a warehouse from the bundled sample campaign and show what it holds.

Each capability adds its step here, so the demo always shows the whole product.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from pyeval import sample
from pyeval.storage import ownership
from pyeval.storage import warehouse
from pyeval.core.db import first_row, transaction
from .errors import NotOwnedError, PyevalError, with_command_line
from pyeval.core.evaluation import Evaluation, evaluate
from .loaders import RunMetadata, load_doclengths, load_intents, load_qrels, load_runs
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

#: The tag (run_tags) and label of each sample run: the two Indri runs are real, the others simulated.
RUN_KINDS = ("real", "simulated")


def run_kind(run_id: str) -> str:
    """``real`` for the sample's Indri runs, ``simulated`` for generate.py's (pyeval/sample/README.md)."""
    return "real" if sample.is_real_run(run_id) else "simulated"


#: The ad hoc measures the demo evaluates and stores (issue 3's metric engine).
DEMO_MEASURES = ["AP", "nDCG@10", "nDCG(gain=exp)@10", "P@10", "RR", "Bpref", "infAP", "R@100", "NumRet(rel=1)"]

#: The headline measures whose discriminative power the demo computes (issue 7: paired
#: bootstrap test, B = 1000, seed 0, over the 190 pairs of the 20 runs, as in Sakai & Song, SIGIR 2011).
DISCPOWER_MEASURES = ["AP", "nDCG@10", "P@10", "RR"]

EXAMPLE_QUERY = """\
-- topics on which each run beats the real Indri query-likelihood run on nDCG@10:
-- the five with most wins, and the other real run
select run.run_id,
       tags.tag as kind,
       count(*) filter (where run.value > base.value) as wins,
       count(*) filter (where run.value < base.value) as losses
from scores as run
join scores as base
  on base.campaign_id = run.campaign_id and base.topic_id = run.topic_id
 and base.measure = run.measure and base.run_id = 'indri-ql'
join run_tags as tags
  on tags.campaign_id = run.campaign_id and tags.run_id = run.run_id
 and tags.tag in ('real', 'simulated')
where run.campaign_id = 'web2012-adhoc' and run.measure = 'nDCG@10'
  and run.run_id <> 'indri-ql'
group by run.run_id, tags.tag
qualify row_number() over (order by wins desc, run.run_id) <= 5 or kind = 'real'
order by wins desc, run.run_id"""


def _prepare(out: Path) -> None:
    """Remove a previous demo warehouse: a file that carries the demo's marker
    (pyeval.storage.ownership.DEMO_MARKER) and only the demo's campaigns; refuse to touch any other."""
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
        raise with_command_line(NotOwnedError(f"{out} holds campaigns other than the demo's; choose another path"),
                                f"{out} holds campaigns other than the demo's; choose another --out")
    out.unlink()


def build_demo(path: str | Path) -> Evaluation:
    """Build the demo warehouse at ``path`` (three campaigns, 20 runs each, tagged ``real`` or
    ``simulated`` in run_tags) and evaluate the ad hoc campaign (stored); returns that evaluation."""
    con = warehouse.connect(path)
    try:
        with transaction(con):
            ownership.mark(con, ownership.DEMO_MARKER)
        for campaign, (qrels, intents, description) in DEMO_CAMPAIGNS.items():
            load_qrels(con, campaign, sample.path(qrels), description=description)
            if intents:
                load_intents(con, campaign, sample.path(intents))
            for kind in RUN_KINDS:
                runs = [p for p in sample.run_paths() if run_kind(sample.run_name(p)) == kind]
                load_runs(con, campaign, runs, names=[sample.run_name(p) for p in runs],
                          metadata=RunMetadata(tags=(kind,)))
            load_doclengths(con, campaign, sample.path("doclengths.txt.gz"))
            date_demo_runs(con, campaign)
        return evaluate(con, "web2012-adhoc", DEMO_MEASURES)
    finally:
        con.close()


def demo_run_metadata(run_id: str) -> RunMetadata:
    """The system and date the demo gives a sample run, so that ``monthly_means`` and other trend
    views have rows (docs/bi.md): the two Indri runs are system ``indri`` (June and July 2012);
    simulated run N is system ``simulated-a``, ``-b`` or ``-c`` (N mod 3), one run a month from
    May to October 2012. Invented for the demo: the sample's files carry no dates."""
    from datetime import date

    if sample.is_real_run(run_id):
        return RunMetadata(system="indri", run_date=date(2012, 6 if run_id.endswith("ql") else 7, 15))
    number = int("".join(ch for ch in run_id if ch.isdigit()) or 1) - 1
    return RunMetadata(system=f"simulated-{'abc'[number % 3]}", run_date=date(2012, 5 + (number // 3) % 6, 15))


def date_demo_runs(con, campaign: str) -> None:
    """Annotate each of ``campaign``'s runs with :func:`demo_run_metadata` (tags are kept)."""
    from .loaders import annotate_run

    for run_id, in con.execute("select run_id from runs where campaign_id = $c order by run_id",
                               {"c": campaign}).fetchall():
        annotate_run(con, campaign, run_id, demo_run_metadata(run_id))


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


#: The diversity measures the demo evaluates and stores on web2012 (issue 5; l = 10 as in Sakai & Song, SIGIR 2011).
DIVERSITY_MEASURES = [
    "IRec@10", "D_nDCG@10", "Dsharp_nDCG@10", "D_Q@10", "Dsharp_Q@10", "DIN_nDCG@10",
    "DINsharp_nDCG@10", "PplusQsharp@10", "IA_nDCG@10", "EfP@10",
]


def irec_plot_path(out: Path) -> Path:
    """Where the demo saves its I-rec vs D-nDCG plot: ``<stem>-irec-dndcg.png``."""
    return out.with_name(f"{out.stem}-irec-dndcg.png")


def demo_diversity(path: str | Path, plot: Path) -> Evaluation:
    """Evaluate :data:`DIVERSITY_MEASURES` on web2012 (stored) and save Sakai & Song's (SIGIR 2011) plot:
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
    x_values, y_values = table["IRec@10"], table["D_nDCG@10"]
    real = table.index.map(sample.is_real_run).to_numpy(dtype=bool)
    figure, axes = plt.subplots(figsize=(6, 5))
    pad = 0.05
    x_range = (max(0.0, x_values.min() - pad), min(1.0, x_values.max() + pad))
    y_range = (max(0.0, y_values.min() - pad), min(1.0, y_values.max() + pad))
    x, y = np.meshgrid(np.linspace(*x_range, 101), np.linspace(*y_range, 101))
    contours = axes.contour(x, y, 0.5 * x + 0.5 * y, levels=np.arange(0.05, 1.0, 0.05), colors="grey",
                            linestyles="dotted", linewidths=0.8)
    axes.clabel(contours, contours.levels[1::2], fmt="D#=%.1f", fontsize=7)
    axes.scatter(x_values[~real], y_values[~real], s=16, color="tab:blue", alpha=0.6,
                 label=f"simulated runs ({int((~real).sum())}; simNN numbered NN)")
    for run_id, row in table[~real].iterrows():  # each simulated run by its number: sim16 is "16"
        axes.annotate(run_id.removeprefix("sim"), (row["IRec@10"], row["D_nDCG@10"]), xytext=(3, 2),
                      textcoords="offset points", fontsize=6, color="tab:blue")
    axes.scatter(x_values[real], y_values[real], s=40, marker="D", color="tab:red",
                 label=f"real runs ({int(real.sum())})")
    for rank, (run_id, row) in enumerate(table[real].sort_values("D_nDCG@10").iterrows()):
        # the real runs lie close together: labels to the right, stacked so they never overlap
        axes.annotate(run_id, (row["IRec@10"], row["D_nDCG@10"]), xytext=(14, -10 + 14 * rank),
                      textcoords="offset points", fontsize=8, color="tab:red",
                      arrowprops={"arrowstyle": "-", "color": "tab:red", "linewidth": 0.6})
    axes.set_xlim(*x_range)
    axes.set_ylim(*y_range)
    axes.set_xlabel("I-rec@10 (intent recall)")
    axes.set_ylabel("D-nDCG@10")
    axes.set_title("web2012 (uniform intents): I-rec@10 vs D-nDCG@10;\n"
                   "dotted: D#-nDCG@10 = (I-rec + D-nDCG)/2 (Sakai & Song, SIGIR 2011)", fontsize=9)
    axes.legend(loc="lower right", fontsize=8)
    axes.grid(alpha=0.2)
    from .resampling.store import save_figure

    save_figure(figure, plot, 120)  # a new file, or one pyeval saved: never another
    return evaluation


#: NTCIR ad hoc measures the demo evaluates and stores on web2012-adhoc (issue 4):
#: Q-measure and its cutoff form, P-plus, R-measure, the Jarvelin-Kekalainen nDCG, NTCIREVAL's
#: ERR and nERR, nGAP, and Q under Sakai's (AIRS 2005) steep and (per-topic) adjust gain assignments.
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


#: The concordance matrix of the demo (issue 8; Sakai, JIP 2013; Sakai & Dou, SIGIR 2013): diversity
#: measures at l = 10 against intent recall and effective precision on web2012. Each entry lists
#: the spellings the registry may use; measures the registry does not (yet) have are skipped.
CONCORDANCE_MEASURES = {
    "D#-nDCG": ("Dsharp_nDCG@10", "D#-nDCG@10"),
    "DIN#-nDCG": ("DINsharp_nDCG@10", "DIN#-nDCG@10"),
    "P+Q#": ("PplusQsharp@10", "P+Q#@10"),
    "alpha-nDCG": ("alpha_nDCG@10", "alpha-nDCG@10"),
    "ERR-IA": ("ERR_IA@10", "ERR-IA@10"),  # the canonical name first: ERR-IA warns about its meaning
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


#: The demo's pool: the real runs and the first eight simulated ones, depth 20 (docs/pools.md).
POOL_RUNS = 10
POOL_DEPTH = 20


def demo_pools(path: str | Path):
    """Pool web2012-adhoc's first runs at depth 20, store the coverage of every run by the NIST
    qrels, and leave each real run out of the pool in turn (leave-one-run-out, AP and P@10):
    (coverage summary, leave-out result, pooled run ids)."""
    from . import pools

    with warehouse.connect(path) as con:
        names = [r for r, in con.execute("select run_id from runs where campaign_id = 'web2012-adhoc' "
                                          "order by run_id").fetchall()]
        pooled = [*sample.REAL_RUNS, *[r for r in names if not sample.is_real_run(r)][:POOL_RUNS - 2]]
        pools.build(con, "web2012-adhoc", "demo", depth=POOL_DEPTH, runs=pooled)
        summary = pools.coverage_summary(pools.coverage(con, "web2012-adhoc", "demo"), pooled)
        result = pools.leave_out(con, "web2012-adhoc", "demo", ["AP", "P@10"], grouping="run",
                                 teams=list(sample.REAL_RUNS))
    return summary, result, pooled


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


#: The measures the demo's fused run is shown with, beside its inputs.
FUSION_MEASURES = ["AP", "nDCG@10", "P@10"]


def demo_fusion(path: str | Path):
    """Fuse the two real Indri runs of web2012-adhoc by RRF (k = 60; docs/fusion.md), stored with
    its recipe, evaluate it beside its inputs (not stored), then delete it with its derivation so
    that the demo's campaign keeps its 20 runs. Returns (the fused list, the means, the recipe)."""
    from . import fusion

    con = warehouse.connect(path)
    try:
        frame = fusion.fuse(con, "web2012-adhoc", list(sample.REAL_RUNS), "rrf", k=60, name="indri-rrf")
        means = evaluate(con, "web2012-adhoc", FUSION_MEASURES, runs=["indri-rrf", *sample.REAL_RUNS],
                         store=False).wide().reset_index()
        recipe = fusion.derived_runs(con, "web2012-adhoc").set_index("run_id").loc["indri-rrf", "parameters"]
        fusion.delete_run(con, "web2012-adhoc", "indri-rrf")
        return frame, means, recipe
    finally:
        con.close()


#: The measures whose scores the demo compares under the two judgment sets of web2012-adhoc.
JUDGMENT_MEASURES = ["nDCG@10", "AP"]


def demo_judgments(path: str | Path):
    """Add the sample's simulated stricter judge to web2012-adhoc as the judgment set
    ``stricter`` (every positive level lowered by one: pyeval/sample STRICTER_QRELS) and compare
    it with the official NIST qrels on labels and on :data:`JUDGMENT_MEASURES` (stored)."""
    from .judgments import compare
    from .loaders.judgment_sets import SetProvenance

    con = warehouse.connect(path)
    try:
        load_qrels(con, "web2012-adhoc", sample.stricter_qrels(), judgment_set="stricter",
                   provenance=SetProvenance(kind="derived", judge="simulated: NIST levels lowered by one",
                                            description="a simulated stricter judge (pyeval sample)"))
        return compare(con, "web2012-adhoc", "official", ["stricter"], JUDGMENT_MEASURES, top_k=(5,))
    finally:
        con.close()


#: The measures of the demo's reproduction step (docs/reproducibility.md section 5).
REPRO_MEASURES = ["AP", "nDCG@10"]


def demo_repro(path: str | Path):
    """"Reproduce" the two real Indri runs of web2012-adhoc by adding seeded normal noise (sd 0.05)
    to their scores, load the reproductions as ``indri-ql-rep`` and ``indri-rm-rep`` (tag
    ``reproduction``), record what they reproduce, compare the pairs by repro_eval's measures
    (stored; docs/reproducibility.md), then delete the reproductions with their relations so that
    the campaign keeps its 20 runs. Returns the :class:`pyeval.repro.ReproResult`."""
    import numpy as np

    from . import fusion
    from .repro import reproduce
    from .repro.relations import record_relation

    con = warehouse.connect(path)
    try:
        entries = con.execute(
            "select run_id, topic_id as query_id, doc_id, score from run_entries "
            "where campaign_id = 'web2012-adhoc' and list_contains($runs, run_id) order by run_id, topic_id, trec_rank",
            {"runs": list(sample.REAL_RUNS)}).df()
        rng = np.random.default_rng(42)
        frames = []
        for run in sample.REAL_RUNS:
            frame = entries[entries["run_id"] == run][["query_id", "doc_id", "score"]]
            frames.append(frame.assign(score=frame["score"] + rng.normal(0, 0.05, len(frame))))
        names = [f"{run}-rep" for run in sample.REAL_RUNS]
        load_runs(con, "web2012-adhoc", frames, names=names, metadata=RunMetadata(tags=("reproduction",)))
        for run, name in zip(sample.REAL_RUNS, names):
            record_relation(con, "web2012-adhoc", name, "reproduces", run,
                            provenance="pyeval demo: the run's scores plus normal noise, sd 0.05, seed 42")
        result = reproduce(con, "web2012-adhoc", *sample.REAL_RUNS, None, None, REPRO_MEASURES)  # the recorded ones
        for name in names:  # the campaign keeps its 20 runs (the docs' examples count them)
            fusion.delete_run(con, "web2012-adhoc", name)
        return result
    finally:
        con.close()


#: The measures of generated answers the demo evaluates (docs/rag.md): nugget scores under each
#: assignment set of the sample, citation support and the answers' shape under its support set.
RAG_NUGGET_MEASURES = ["VitalScore", "StrictVitalScore", "AllScore", "WeightedScore"]
RAG_SUPPORT_MEASURES = ["CitationPrecision", "CitationRecall", "AnswerLength", "CitationsPerSentence"]

RAG_QUERY = """\
-- the answering runs over the ten topics they answer: nDCG@10 of their ranked lists (official
-- qrels) beside the vital score of their answers under the manual and the automatic assignments
select retrieval.run_id,
       avg(retrieval.value) as "nDCG@10",
       avg(manual.value) as vital_manual,
       avg(auto.value) as vital_auto,
       avg(support.value) as citation_recall
from scores_by_set as retrieval
join answer_scores_by_set as manual
  on manual.campaign_id = retrieval.campaign_id and manual.run_id = retrieval.run_id
 and manual.topic_id = retrieval.topic_id and manual.judgment_set = 'manual' and manual.measure = 'VitalScore'
join answer_scores_by_set as auto
  on auto.campaign_id = retrieval.campaign_id and auto.run_id = retrieval.run_id
 and auto.topic_id = retrieval.topic_id and auto.judgment_set = 'auto' and auto.measure = 'VitalScore'
join answer_scores_by_set as support
  on support.campaign_id = retrieval.campaign_id and support.run_id = retrieval.run_id
 and support.topic_id = retrieval.topic_id and support.judgment_set = 'support'
 and support.measure = 'CitationRecall'
where retrieval.campaign_id = 'web2012-adhoc' and retrieval.judgment_set = 'official'
  and retrieval.measure = 'nDCG@10'
group by retrieval.run_id
order by vital_manual desc, retrieval.run_id
limit 8"""


def demo_rag(path: str | Path):
    """Load the sample's generated answers (rag/: a nugget bank over topics 151-160, the simulated
    runs' answers, a manual and a noisier automatic assignment set, citation support) into
    web2012-adhoc, evaluate :data:`RAG_NUGGET_MEASURES` under both assignment sets and
    :data:`RAG_SUPPORT_MEASURES` under the support set (stored), and compare the two assignment
    sets on their labels and on VitalScore (stored). Returns :data:`RAG_QUERY`'s table, the
    comparison, the number of answering runs and the unanswered (run, topic) pairs (scored 0:
    what the evaluations warn about, said by the demo instead)."""
    import warnings

    from .errors import PyevalWarning
    from .judgments import compare
    from .loaders import load_answers, load_assignments, load_nuggets, load_support
    from .loaders.judgment_sets import SetProvenance

    campaign = "web2012-adhoc"
    con = warehouse.connect(path)
    try:
        load_nuggets(con, campaign, sample.path("rag/nuggets.jsonl"), creator="human",
                     description="the sample's subtopics as nuggets (pyeval sample, rag/)")
        load_answers(con, campaign, sample.path("rag/answers.jsonl.gz"))
        load_assignments(con, campaign, sample.path("rag/assignments.manual.jsonl.gz"), judgment_set="manual")
        load_assignments(con, campaign, sample.path("rag/assignments.auto.jsonl.gz"), judgment_set="auto",
                         provenance=SetProvenance(kind="llm", judge="simulated: the manual labels with noise"))
        load_support(con, campaign, sample.path("rag/support.tsv.gz"), judgment_set="support")
        runs = [row[0] for row in con.execute(
            "select distinct run_id from answers where campaign_id = $c order by run_id", {"c": campaign}).fetchall()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PyevalWarning)  # the unanswered pairs: said below
            for assignments in ("manual", "auto"):
                evaluate(con, campaign, RAG_NUGGET_MEASURES, runs=runs, judgment_set=assignments)
            evaluate(con, campaign, RAG_SUPPORT_MEASURES, runs=runs, judgment_set="support")
        comparison = compare(con, campaign, "manual", ["auto"], ["VitalScore"], top_k=(5,))
        unanswered = [f"{run}/{topic}" for run, topic in con.execute(
            "select run_id, topic_id from answer_scores_by_set where campaign_id = $c and judgment_set = 'manual' "
            "and measure = 'VitalScore' and not answered order by run_id, topic_id", {"c": campaign}).fetchall()]
        return run_sql(con, RAG_QUERY), comparison, len(runs), unanswered
    finally:
        con.close()


def topic_count(con) -> int:
    return first_row(con, "select count(*) from topics where campaign_id = 'web2012-adhoc'")[0]


#: Runs shown by the demo's tables (besides the real ones).
TOP_RUNS = 8


def _ranked(wide, by: str, top: int = TOP_RUNS):
    """Runs by ``by`` descending with their rank and kind: the first ``top`` and every real run."""
    table = wide.sort_values(by, ascending=False, kind="stable").reset_index()
    table.insert(0, "rank", range(1, len(table) + 1))
    table.insert(2, "kind", table["run_id"].map(run_kind))
    return table[(table["rank"] <= top) | (table["kind"] == "real")]


class DemoSteps:
    """The demo's steps as they run, on ``stream`` (stderr): a progress bar on a terminal;
    elsewhere (a pipe, a file) one line per step as it starts, flushed at once, so that a reader
    of the pipe sees what the demo is doing before the step's section is printed."""

    def __init__(self, titles: list[str], *, stream=None, progress: bool = True) -> None:
        from tqdm import tqdm

        self.titles = titles
        self.stream = sys.stderr if stream is None else stream
        self.bar = tqdm(total=len(titles), desc=titles[0], unit="step", file=self.stream,
                        disable=None if progress else True, leave=False)
        self.announce = progress and self.bar.disable  # no bar drawn: a line per step instead
        self.done = 0  # steps finished (a disabled bar counts none)

    def write(self, echo: Callable[[str], None], text: str) -> None:
        """``echo(text)`` without breaking the progress bar."""
        from tqdm import tqdm

        with tqdm.external_write_mode(file=self.stream):
            echo(text)

    def run(self, step: Callable[[], object]) -> tuple[object, float]:
        """Run the next step: its value and the seconds it took."""
        if self.announce:
            print(f"pyeval demo: step {self.done + 1}/{len(self.titles)}, {self.titles[self.done]} ...",
                  file=self.stream, flush=True)
        started = time.perf_counter()
        value = step()
        elapsed = time.perf_counter() - started
        self.done += 1
        self.bar.update()
        if self.done < len(self.titles):
            self.bar.set_description(self.titles[self.done])
        return value, elapsed

    def close(self) -> None:
        self.bar.close()


def _print_flushed(text: str) -> None:
    print(text, flush=True)


def run_demo(out: str | Path, echo: Callable[[str], None] = _print_flushed, *, progress: bool = True) -> None:
    """Build the demo warehouse at ``out`` and print what it holds, each section as soon as it
    is computed; ``progress``: the steps on stderr as they start (:class:`DemoSteps`)."""
    from pyeval.core.evaluation import summed_measures

    out = Path(out)
    _prepare(out)
    titles = ["loading the sample", "NTCIR measures", "discriminative power", "diversity measures",
              "ndeval family", "concordance test", "run fusion", "judgment sets", "generated answers",
              "pool and leave-one-out", "reproducibility"]
    steps = DemoSteps(titles, progress=progress)

    def say(text: str) -> None:
        steps.write(echo, text)

    timed = steps.run

    def show(wide, by: str, columns=None) -> None:
        table = _ranked(wide, by)
        if columns is not None:
            table = table[["rank", "run_id", "kind", *columns]]
        say(render(table, integer_columns=summed_measures(table.columns)))

    real = " and ".join(sample.REAL_RUNS)
    shown = f"the top {TOP_RUNS} by {{}} and the real runs ({real}; the others are simulated)"
    try:
        evaluation, elapsed = timed(lambda: build_demo(out))
        with warehouse.connect(out, read_only=True) as con:
            say(f"Built {out} in {elapsed:.1f} s from the bundled TREC 2012 Web track sample: two real Indri "
                f"runs and 18 simulated ones (run_tags 'real' and 'simulated').\n")
            say("Campaigns:")
            say(render(campaign_overview(con).drop(columns=["source_campaign_id", "created_at"])))
            runs = run_overview(con)
            runs.insert(2, "kind", runs["run_id"].map(run_kind))
            say(f"\nRuns ({len(runs)} in all; the first three of each campaign):")
            say(render(runs.groupby("campaign_id").head(3).drop(columns=["source_file"])))
            nav = first_row(con, "select count(*) from intents_by_set where campaign_id = 'web2012' and intent_type = 'nav'")[0]
            say(f"\nIntents of web2012: {nav} navigational, the rest informational.")
            say(f"\nAd hoc evaluation of web2012-adhoc, stored as evaluation {evaluation.evaluation_id} "
                f"(means over {topic_count(con)} topics, NumRet(rel=1) summed); {shown.format('AP')}:")
            show(evaluation.wide(), "AP")

        ntcir, elapsed = timed(lambda: demo_ntcir(out))
        say(f"\nNTCIR measures on web2012-adhoc ({elapsed:.1f} s), stored as evaluation {ntcir.evaluation_id} "
            f"(`pyeval ntcireval` prints NTCIREVAL's own lines); {shown.format('Q')}:")
        show(ntcir.wide(), "Q")

        power, elapsed = timed(lambda: demo_discriminative_power(out, asl_plot_path(out)))
        say(f"\nDiscriminative power on web2012-adhoc ({elapsed:.1f} s): paired bootstrap test, B = 1000, "
            f"seed 0, the 190 pairs of the 20 runs (real and simulated), alpha = 0.05; delta = difference "
            f"needed for significance:")
        say(render(power.table.drop(columns=["test", "alpha", "warnings"])))
        say(f"ASL curves saved to {asl_plot_path(out)}; stored in the tables discriminative_power and "
            f"pairwise_tests.")

        diversity, elapsed = timed(lambda: demo_diversity(out, irec_plot_path(out)))
        say(f"\nDiversity evaluation of web2012 ({elapsed:.1f} s), stored as evaluation "
            f"{diversity.evaluation_id}: I-rec@10 vs D-nDCG@10 and their D#-nDCG@10 (gamma = 0.5); "
            f"{shown.format('D#-nDCG')}:")
        show(diversity.wide(), "Dsharp_nDCG@10",
             ["IRec@10", "D_nDCG@10", "Dsharp_nDCG@10", "DIN_nDCG@10", "IA_nDCG@10", "EfP@10"])
        say(f"I-rec vs D-nDCG with D#-nDCG contour lines (Sakai & Song, SIGIR 2011) saved to "
            f"{irec_plot_path(out)}.")

        ndeval, elapsed = timed(lambda: demo_ndeval(out))
        say(f"\nThe ndeval family and U-IA on web2012 ({elapsed:.1f} s), stored as evaluation "
            f"{ndeval.evaluation_id} (Python drivers; `pyeval ndeval` prints ndeval's own CSV); "
            f"{shown.format('alpha-nDCG@20')}:")
        show(ndeval.wide(), "alpha_nDCG@20")

        (agreement, agreement_campaign, agreement_missing), elapsed = timed(lambda: demo_concordance(out))
        say(f"\nConcordance test on {agreement_campaign} ({elapsed:.1f} s; Sakai, JIP 2013; docs/resampling.md) "
            f"over the list pairs of all 20 runs: conc(row)/conc(column) where the two disagree, ‡ p < 0.01, "
            f"† p < 0.05 (sign test on the wins), disagreements in parentheses:")
        if agreement_missing:
            say(f"(not in the measure registry yet: {', '.join(agreement_missing)}"
                + ("; ad hoc stand-ins shown)" if agreement_campaign == "web2012-adhoc" else ")"))
        for gold in agreement.gold_sets:
            say(f"gold standard {' & '.join(gold)}:")
            say(render(agreement.matrix(gold).reset_index(names="measure")))
        say("Stored in the table concordance_tests.")

        (fused, fused_means, recipe), elapsed = timed(lambda: demo_fusion(out))
        say(f"\nRun fusion on web2012-adhoc ({elapsed:.1f} s; docs/fusion.md): {real} fused by reciprocal rank "
            f"fusion (k = 60) into 'indri-rrf', {len(fused)} entries, sha256 {fused.attrs['sha256'][:12]}..., "
            f"stored with its recipe and parents, then evaluated beside its inputs:")
        say(render(fused_means))
        say(f"Its recipe (run_derivations.parameters): {recipe}. The demo deleted it again (pyeval delete-run) "
            f"so that the campaign keeps its 20 runs; try pyeval fuse -C web2012-adhoc --method rrf --runs "
            f"indri-ql indri-rm --name indri-rrf.")
        judged, elapsed = timed(lambda: demo_judgments(out))
        say(f"\nJudgment sets of web2012-adhoc ({elapsed:.1f} s; docs/judgments.md): a simulated stricter judge "
            f"(every positive NIST level lowered by one) against the official qrels: label agreement, and "
            f"how the 20 runs' {' and '.join(JUDGMENT_MEASURES)} agree under the two sets:")
        summary = judged.summary().drop(columns=["candidate_set"]).set_index("measure").T
        say(render(summary.reset_index(names="coefficient")))
        say("Stored in the tables judgment_agreement, judgment_confusion and judgment_ranking_agreement; "
            "the leaderboard has a row per set (judgment_set).")

        (answered, nuggets, answering, unanswered), elapsed = timed(lambda: demo_rag(out))
        say(f"\nGenerated answers on web2012-adhoc ({elapsed:.1f} s; docs/rag.md): the {answering} simulated runs' "
            f"answers to topics 151-160, a nugget bank of the topics' subtopics, a manual and a noisier automatic "
            f"nugget assignment set and citation support, loaded beside the runs; "
            f"{', '.join(RAG_NUGGET_MEASURES)} evaluated under both assignment sets and "
            f"{', '.join(RAG_SUPPORT_MEASURES)} under the support set; {len(unanswered)} unanswered (run, topic) "
            f"pairs score 0 ({', '.join(unanswered)}). Retrieval beside answers:")
        say(RAG_QUERY)
        say(render(answered))
        say("The automatic assignments against the manual ones (labels: not_support 0, partial_support 1, "
            "support 2; binary kappa at 2 is support against the rest) and the runs' VitalScore under both:")
        summary = nuggets.summary().drop(columns=["candidate_set"]).set_index("measure").T
        say(render(summary.reset_index(names="coefficient")))
        say("Stored in topic_scores (view answer_scores_by_set: each value with its set and bank) and the "
            "judgment comparison tables.")

        (coverage, leave, pooled), elapsed = timed(lambda: demo_pools(out))
        say(f"\nPool of web2012-adhoc ({elapsed:.1f} s; docs/pools.md): the {len(pooled)} runs marked * pooled to "
            f"depth {POOL_DEPTH}; judged@k = the fraction of a run's top k the NIST qrels judge, unique@k = its "
            f"top-k documents no other pooled run retrieved (each run is its own team here):")
        coverage["run_id"] = coverage["run_id"] + coverage["pooled"].map({True: "*", False: ""})
        say(render(coverage[["run_id", "judged@10", "judged@20", "judged@100", "unique@10", "unique@20"]]))
        say("Leave-one-run-out (gloo-eval.pl's rule, one run at a time): each real run under the qrels without the "
            "judged documents only it contributed; the other runs keep their official values:")
        table = leave.summary()
        say(render(table[table["run"].str.rstrip("*").isin(sample.REAL_RUNS)],
                   integer_columns=("official_rank", "leave_out_rank", "rank_change")))
        say("Stored in the tables pools, pool_documents, pool_coverage and pool_leave_out.")

        reproduced, elapsed = timed(lambda: demo_repro(out))
        say(f"\nReproducibility on web2012-adhoc ({elapsed:.1f} s; docs/reproducibility.md): {real} \"reproduced\" "
            f"by adding normal noise (sd 0.05) to their scores (runs indri-ql-rep and indri-rm-rep, tag "
            f"'reproduction', recorded in run_relations), compared by repro_eval's measures (Breuer et al., SIGIR "
            f"2020): a perfect reproduction has KTU = RBO = 1, RMSE = 0, ER = 1, DeltaRI = 0 and p = 1:")
        say(render(reproduced.table()))
        say(f"Stored as repro experiment {reproduced.repro_id} in repro_results (per topic: repro_topic_values). "
            f"The demo deleted the two reproductions again (pyeval delete-run) so that the campaign keeps its 20 "
            f"runs; try pyeval longitudinal on a campaign whose runs are snapshots (pyeval relate --snapshot).")
        with warehouse.connect(out, read_only=True) as con:
            say("\nAn ad-hoc query over the stored scores:")
            say(EXAMPLE_QUERY)
            say(render(run_sql(con, EXAMPLE_QUERY)))
        say(f'\nTry: pyeval --db {out} sql "select * from campaign_overview"')
    finally:
        steps.close()
