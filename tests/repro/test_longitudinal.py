"""`pyeval longitudinal` against a recomputation with repro_eval per snapshot as CLEF LongEval's
evaluator does it (clef-longeval/longeval-code, clef26/scientific-retrieval/evaluation/src/evaluate/
core.py: RplEvaluator with the reference snapshot as original and each later snapshot as
replication, the pivot system as baseline), row by row to 1e-9; run relations and ir-metadata."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError
from pyeval.loaders import load_qrels, load_runs
from pyeval.repro.longitudinal import longitudinal
from pyeval.repro.relations import load_ir_metadata, record_relation, record_snapshot

pytest.importorskip("repro_eval")
from repro_eval.Evaluator import RplEvaluator  # noqa: E402
from repro_eval.util import arp_scores  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@5"]
SNAPSHOTS = ["2023-01", "2023-06", "2024-01"]
SYSTEMS = ["bm25", "dense", "rerank", "splade"]
TEAMS = {"bm25": "organisers", "dense": "alpha", "rerank": "alpha", "splade": "beta"}


def mean_arp(arp_orig, arp_rep):
    """LongEval core.py's ``mean_arp``, as written there."""
    return {measure: (score + arp_rep[measure]) / 2 for measure, score in arp_orig.items()}


def relative_change(arp_orig, arp_rep):
    """LongEval core.py's ``relative_change``, as written there (0 when the reference ARP is 0)."""
    return {measure: 0 if score == 0 else (score - arp_rep[measure]) / score for measure, score in arp_orig.items()}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("longeval")
    rng = np.random.default_rng(3)
    con = pyeval.connect()
    files, judged = {}, {}
    for k, snapshot in enumerate(SNAPSHOTS):
        topics = [f"q{j}" for j in range(k, k + 8)]  # the query set drifts
        qrels = folder / f"qrels-{snapshot}.txt"
        lines = []
        for topic in topics:
            levels = rng.integers(0, 3, size=30)
            levels[rng.integers(0, 30)] = 2
            lines += [f"{topic} 0 d{j:02d} {level}" for j, level in enumerate(levels)]
        qrels.write_text("\n".join(lines) + "\n")
        files[("qrels", snapshot)] = qrels
        for line in lines:  # the official set: every snapshot's topics (a judgment set reads its own)
            topic, _, doc, _ = line.split()
            judged.setdefault((topic, doc), line)
        for system in SYSTEMS:
            path = folder / f"{system}-{snapshot}.txt"
            lines = []
            for topic in topics:
                docs = rng.choice(30, size=20, replace=False)
                scores = np.sort(rng.integers(0, 40, size=20) / 8)[::-1]
                lines += [f"{topic} Q0 d{d:02d} {r} {s} {system}" for r, (d, s) in enumerate(zip(docs, scores), 1)]
            path.write_text("\n".join(lines) + "\n")
            files[(system, snapshot)] = path
    official = folder / "qrels-all.txt"
    official.write_text("\n".join(judged.values()) + "\n")
    load_qrels(con, "long", official)
    for snapshot in SNAPSHOTS:
        load_qrels(con, "long", files[("qrels", snapshot)], judgment_set=f"snap-{snapshot}")
    load_runs(con, "long", [files[(s, n)] for s in SYSTEMS for n in SNAPSHOTS],
              names=[f"{s}@{n}" for s in SYSTEMS for n in SNAPSHOTS])
    for system in SYSTEMS:
        meta = folder / f"{system}.yml"
        meta.write_text(f"tag: {system}\nactor:\n  team: {TEAMS[system]}\nresearch goal:\n  description: x\n")
        for snapshot in SNAPSHOTS:
            load_ir_metadata(con, "long", f"{system}@{snapshot}", meta)
            record_snapshot(con, "long", f"{system}@{snapshot}", system, snapshot,
                            snapshot_date=pd.Timestamp(snapshot + "-01").date(), judgment_set=f"snap-{snapshot}",
                            pivot_run_id=f"bm25@{snapshot}")
    yield con, files
    con.close()


def _longeval_rows(files, system: str, reference: str = SNAPSHOTS[0]) -> list[dict]:
    """The long rows LongEval's core.py ``do_evaluate`` makes for one system (its measures set to ours)."""
    import ir_measures

    rows = []

    def extend(snapshot, query, meta, values):
        rows.extend({"run": f"{system}@{snapshot}", "snapshot": snapshot, "query": query, "meta_measure": meta,
                     "measure": m, "value": v} for m, v in values.items())

    for snapshot in SNAPSHOTS[1:]:
        rpl = RplEvaluator(qrels_orig_path=str(files[("qrels", reference)]),
                           run_b_orig_path=str(files[("bm25", reference)]),
                           run_a_orig_path=str(files[(system, reference)]),
                           run_b_rep_path=str(files[("bm25", snapshot)]),
                           run_a_rep_path=str(files[(system, snapshot)]),
                           qrels_rpl_path=str(files[("qrels", snapshot)]))
        rpl.measures = [ir_measures.parse_measure(m) for m in MEASURES]
        rpl.evaluate()
        arp_orig, arp_rep = arp_scores(rpl.run_a_orig_score), arp_scores(rpl.run_a_rep_score)
        for query, scores in rpl.run_a_rep_score.items():
            extend(snapshot, query, "per-query", scores)
        extend(snapshot, "all", "ARP", arp_rep)
        extend(snapshot, "all", "ER", rpl.er())
        extend(snapshot, "all", "DRI", rpl.dri())
        extend(snapshot, "all", "t-test", rpl.ttest()["advanced"])
        extend(snapshot, "all", "AP", mean_arp(arp_orig, arp_rep))
        extend(snapshot, "all", "RC", relative_change(arp_orig, arp_rep))
    for query, scores in rpl.run_a_orig_score.items():
        extend(reference, query, "per-query", scores)
    extend(reference, "all", "ARP", arp_orig)
    return rows


def test_long_rows_equal_longeval_core_py_with_repro_eval(campaign):
    con, files = campaign
    result = longitudinal(con, "long", "bm25", MEASURES)
    stored = con.execute("select team, run, snapshot, qrels_set, query, meta_measure, measure, value "
                         "from longeval_rows where longitudinal_id = $i", {"i": result.longitudinal_id}).df()
    ours = {(r.run, r.snapshot, r.query, r.meta_measure, r.measure): r.value for r in stored.itertuples()}
    expected = [row for system in SYSTEMS for row in _longeval_rows(files, system)]
    assert len(ours) == len(stored) == len(expected)
    for row in expected:
        value = ours[(row["run"], row["snapshot"], row["query"], row["meta_measure"], row["measure"])]
        if math.isfinite(row["value"]):
            assert abs(value - row["value"]) <= 1e-9, row
        else:  # the pivot against itself: ER and DRI are 0/0 (repro_eval NaN, stored NULL)
            assert value is None or math.isnan(value), row
    assert set(stored["team"]) == set(TEAMS.values())  # from the ir-metadata files
    assert set(stored["qrels_set"]) == {f"snap-{s}" for s in SNAPSHOTS}


def test_ranking_stability_and_summary(campaign):
    from pyeval.resampling.correlation import kendall_tau, tau_ap

    con, _ = campaign
    result = longitudinal(con, "long", "bm25", ["AP"], store=False)
    assert result.longitudinal_id is None
    arp = result.rows[result.rows["meta_measure"] == "ARP"].pivot(index="system", columns="snapshot", values="value")
    row = result.rankings.iloc[0]
    a, b = arp[row["snapshot_1"]].to_numpy(), arp[row["snapshot_2"]].to_numpy()
    assert row["tau"] == pytest.approx(kendall_tau(a, b), abs=1e-12)
    assert row["tau_ap"] == pytest.approx(tau_ap(a, b, list(arp.index)), abs=1e-12)
    assert len(result.rankings) == 3  # every two of the three snapshots
    summary = result.summary()
    assert list(summary.columns) == ["system", "snapshot", "measure", "ARP", "ER", "DRI", "p_value", "mean_ARP", "RC"]
    assert list(summary["snapshot"][:3]) == SNAPSHOTS


def test_plot_of_arp_across_snapshots(campaign, tmp_path):
    con, _ = campaign
    result = longitudinal(con, "long", "bm25", ["AP", "P@5"], store=False)
    result.plot(tmp_path / "arp.png")
    assert (tmp_path / "arp.png").read_bytes()[:4] == b"\x89PNG"


def test_bad_requests_are_one_line_errors(campaign, tmp_path):
    con, files = campaign
    with pytest.raises(PyevalError, match="no system 'nope'"):
        longitudinal(con, "long", "nope", ["AP"], store=False)
    with pytest.raises(PyevalError, match="no snapshot '1999'"):
        longitudinal(con, "long", "bm25", ["AP"], reference="1999", store=False)
    with pytest.raises(PyevalError, match="already has run"):
        record_snapshot(con, "long", "dense@2023-01", "bm25", "2023-01")
    with pytest.raises(PyevalError, match="no run named 'ghost'"):
        record_relation(con, "long", "ghost", "reproduces", "bm25@2023-01")
    bad = tmp_path / "bad.yml"
    bad.write_text("tag: [unclosed\nactor: x\n")
    with pytest.raises(PyevalError, match=r"bad.yml:\d+: not an ir-metadata file"):
        load_ir_metadata(con, "long", "bm25@2023-01", bad)
    record_relation(con, "long", "dense@2023-06", "reproduces", "dense@2023-01", provenance="rerun, same index")
    assert con.execute("select original_run_id, provenance from run_relations where run_id = 'dense@2023-06'"
                       ).fetchall() == [("dense@2023-01", "rerun, same index")]
    document = con.execute("select document->>'$.actor.team' from run_metadata where run_id = 'splade@2024-01'"
                           ).fetchall()
    assert document == [("beta",)]
