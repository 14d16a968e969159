"""`pyeval repro` against repro_eval 0.5.0 (irgroup/repro_eval, test-only): every figure to 1e-9, on
generated run quadruples with ties and missing topics, and end to end through repro_eval's
RpdEvaluator on the sample campaign with a perturbed reproduction (docs/reproducibility.md)."""
from __future__ import annotations

import gzip
import itertools
import math
from collections import OrderedDict

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval import sample
from pyeval.loaders import load_qrels, load_runs
from pyeval.repro import measures as formulas
from pyeval.repro.experiment import reproduce

repro_eval = pytest.importorskip("repro_eval")
from repro_eval.measure.document_order import KTU, RBO, _rbo  # noqa: E402
from repro_eval.measure.effectiveness import RMSE, nRMSE  # noqa: E402
from repro_eval.measure.overall_effects import DRI, ER  # noqa: E402
from repro_eval.measure.statistics import ttest  # noqa: E402
from repro_eval.util import break_ties, evaluate_run  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@5"]
QUADRUPLES = 200
TOPICS = [f"t{k}" for k in range(6)]


def _close(ours: float, theirs: float, identical: bool = False) -> bool:
    """Equal to 1e-9; repro_eval's NaN or +-inf (a division by 0) is pyeval's NaN (NULL when stored).
    ``identical``: a t-test of two identical score vectors, where pyeval's p is 1 for that measure
    and repro_eval's is 1 only when every measure it evaluated is identical (NaN otherwise;
    docs/reproducibility.md section 3)."""
    if identical and math.isnan(theirs):
        return ours == 1.0
    if not math.isfinite(theirs):
        return math.isnan(ours)
    return abs(ours - theirs) <= 1e-9


def _qrels(rng) -> pd.DataFrame:
    rows = []
    for topic in TOPICS:
        levels = rng.integers(0, 3, size=25)
        levels[0] = 1  # every topic has a relevant document
        rows += [(topic, "0", f"d{j:02d}", int(level)) for j, level in enumerate(levels)]
    return pd.DataFrame(rows, columns=["query_id", "iteration", "doc_id", "relevance"])


def _run(rng, base: dict | None = None) -> dict:
    """A run as repro_eval reads a score-sorted file: topic -> {doc: score} in file order; scores on
    a coarse grid (ties), some topics missing, list lengths 2-20 (a perturbed copy of ``base``)."""
    run = {}
    for topic in TOPICS:
        if rng.random() < 0.15:
            continue  # a missing topic
        if base is not None and topic in base and rng.random() < 0.7:
            docs = list(base[topic])
            scores = np.array(list(base[topic].values())) + rng.normal(0, 0.15, size=len(docs)).round(1)
        else:
            docs = list(rng.choice([f"d{j:02d}" for j in range(30)], size=int(rng.integers(2, 21)), replace=False))
            scores = rng.integers(0, 8, size=len(docs)) / 4
        order = np.argsort(-scores, kind="stable")
        run[topic] = OrderedDict((docs[i], float(scores[i])) for i in order)
    if not run:
        run[TOPICS[0]] = OrderedDict([("d00", 1.0), ("d01", 0.5)])
    return run


def _write(run: dict, path) -> object:
    """The run as a TREC run file, score-sorted within each topic (files load faster than frames)."""
    lines = [f"{t} Q0 {d} {k} {s!r} tag" for t, docs in run.items() for k, (d, s) in enumerate(docs.items(), 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _scored(qrels: dict, runs: dict[str, dict]) -> dict[str, dict]:
    """repro_eval's per-topic scores of each run (``evaluate_run``: ir_measures on the tie-broken
    run), topics a run lacks scoring 0 as pyeval stores them (trec_eval -c). One call scores every
    run: each run's topics are renamed ``run|topic`` (a topic's score reads only its own lists)."""
    import ir_measures

    merged = {f"{name}|{t}": OrderedDict(docs) for name, run in runs.items() for t, docs in run.items()}
    merged_qrels = {f"{name}|{t}": judged for name in runs for t, judged in qrels.items()}
    scores = evaluate_run([ir_measures.parse_measure(m) for m in MEASURES], merged_qrels, break_ties(merged))
    return {name: {t: scores.get(f"{name}|{t}", dict.fromkeys(MEASURES, 0.0)) for t in sorted(qrels)}
            for name in runs}


def _common(a: dict, b: dict) -> tuple[dict, dict]:
    topics = [t for t in sorted(a) if t in b]
    return ({t: OrderedDict(a[t]) for t in topics}, {t: OrderedDict(b[t]) for t in topics})


def _cut(a: dict, b: dict) -> tuple[dict, dict]:
    """Both lists of a topic cut to the shorter one's length (pyeval's KTU convention)."""
    a, b = break_ties(a), break_ties(b)
    cut = {t: min(len(a[t]), len(b[t])) for t in a}
    return ({t: OrderedDict(list(a[t].items())[:cut[t]]) for t in a},
            {t: OrderedDict(list(b[t].items())[:cut[t]]) for t in b})


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quadruples")
    rng = np.random.default_rng(42)
    qrels_frame = _qrels(rng)
    rep_qrels_frame = _qrels(rng)
    con = pyeval.connect()
    load_qrels(con, "c", qrels_frame)
    load_qrels(con, "c2", rep_qrels_frame)
    quadruples, frames, names, frames2, names2 = [], [], [], [], []
    for q in range(QUADRUPLES):
        b, a = _run(rng), _run(rng)
        if q % 25 == 0:
            b2, a2 = b, a  # a perfect reproduction: identical scores (p = 1)
        else:
            b2, a2 = _run(rng, b), _run(rng, a)
        quadruples.append((b, a, b2, a2))
        for role, run in zip(("b", "a", "b2", "a2"), (b, a, b2, a2)):
            frames.append(_write(run, folder / f"q{q}{role}.txt"))
            names.append(f"q{q}{role}")
        if q < 40:  # replicability: the reproductions on another collection
            for role, run in zip(("b2", "a2"), (b2, a2)):
                frames2.append(_write(run, folder / f"q{q}{role}-2.txt"))
                names2.append(f"q{q}{role}")
    load_runs(con, "c", frames, names=names)
    load_runs(con, "c2", frames2, names=names2)
    pyeval.evaluate(con, "c", MEASURES)
    pyeval.evaluate(con, "c2", MEASURES)
    qrels = {t: dict(zip(g["doc_id"], g["relevance"])) for t, g in qrels_frame.groupby("query_id")}
    rep_qrels = {t: dict(zip(g["doc_id"], g["relevance"])) for t, g in rep_qrels_frame.groupby("query_id")}
    roles = ("b", "a", "b2", "a2")
    scores = _scored(qrels, {f"q{q}{role}": run for q, runs in enumerate(quadruples) for role, run in zip(roles, runs)})
    rep_scores = _scored(rep_qrels, {f"q{q}{role}": run for q, runs in enumerate(quadruples[:40])
                                     for role, run in zip(roles[2:], runs[2:])})
    yield con, quadruples, scores, rep_scores
    con.close()


def _figures(result) -> dict:
    return {(r.pair, r.statistic, r.measure if isinstance(r.measure, str) else None): r.value
            for r in result.results.itertuples()}


def test_every_figure_equals_repro_eval_on_generated_quadruples(generated):
    con, quadruples, all_scores, _ = generated
    checked = 0
    for q, (b, a, b2, a2) in enumerate(quadruples):
        depth = 1000 if q < 50 else 30  # lists hold at most 20 documents; 1000 is repro_eval's default
        result = reproduce(con, "c", f"q{q}b", f"q{q}a", f"q{q}b2", f"q{q}a2", MEASURES, rbo_depth=depth,
                           store=q % 50 == 0)
        ours = _figures(result)
        scores = {role: all_scores[f"q{q}{role}"] for role in ("b", "a", "b2", "a2")}
        expected, identical = {}, set()
        for pair, orig, rep in (("baseline", "b", "b2"), ("advanced", "a", "a2")):
            for measure, value in RMSE(scores[orig], scores[rep]).items():
                expected[(pair, "RMSE", measure)] = value
            for measure, value in nRMSE(scores[orig], scores[rep]).items():
                expected[(pair, "nRMSE", measure)] = value
            for measure, value in ttest(scores[orig], scores[rep], rpd=True).items():
                expected[(pair, "p_value", measure)] = value
                if all(scores[orig][t][measure] == scores[rep][t][measure] for t in scores[orig]):
                    identical.add((pair, "p_value", measure))
        for measure, value in ER(scores["a"], scores["b"], scores["a2"], scores["b2"]).items():
            expected[("effect", "ER", measure)] = value
        for measure, value in DRI(scores["a"], scores["b"], scores["a2"], scores["b2"]).items():
            expected[("effect", "DeltaRI", measure)] = value
        for pair, orig, rep in (("baseline", b, b2), ("advanced", a, a2)):
            o, r = _common(orig, rep)
            expected[(pair, "RBO", None)] = RBO(o, r, p=0.95, depth=depth, pbar=False, per_topic=False)
            expected[(pair, "KTU", None)] = KTU(*_cut(*_common(orig, rep)), per_topic=False)
        for key, value in expected.items():
            assert _close(ours[key], value, key in identical), (q, key, ours[key], value)
            checked += 1
        per_topic = result.topic_values[result.topic_values["statistic"] == "RBO"]
        o, r = _common(b, b2)
        theirs = RBO(o, r, p=0.95, depth=depth, pbar=False, per_topic=True)
        mine = per_topic[per_topic["pair"] == "baseline"].set_index("topic_id")["value"].to_dict()
        assert mine.keys() == theirs.keys()
        assert all(abs(mine[t] - theirs[t]) <= 1e-9 for t in theirs)
    assert checked >= QUADRUPLES * 20


def test_rbo_with_ties_is_repro_eval_rbo_averaged_over_the_orders_of_the_ties(generated):
    """Corsi & Urbano's RBO^a: the expected RBO over every order of each run's tied documents,
    here enumerated and scored by repro_eval's own ``_rbo``."""
    con, quadruples, _, _ = generated
    checked = 0
    for q, (b, _a, b2, _a2) in enumerate(quadruples[:40]):
        result = reproduce(con, "c", f"q{q}b", f"q{q}a", f"q{q}b2", f"q{q}a2", ["AP"], rbo_depth=25, store=False)
        values = result.topic_values
        ours = values[(values["statistic"] == "RBO_ties") & (values["pair"] == "baseline")]
        for topic, value in zip(ours["topic_id"], ours["value"]):
            if _order_count(b[topic]) * _order_count(b2[topic]) > 120:
                continue
            orders = [_tie_orders(b[topic]), _tie_orders(b2[topic])]
            expected = np.mean([_rbo(y, x, p=0.95, depth=25) for x, y in itertools.product(*orders)])
            assert abs(value - expected) <= 1e-9, (q, topic)
            checked += 1
    assert checked > 50


def _order_count(ranking: dict) -> int:
    return math.prod(math.factorial(len(list(g))) for _, g in itertools.groupby(ranking, key=lambda d: ranking[d]))


def _tie_orders(ranking: dict) -> list[list[str]]:
    """Every order of a run's documents that keeps scores descending (ties permuted)."""
    groups = [list(g) for _, g in itertools.groupby(ranking, key=lambda d: ranking[d])]
    return [list(itertools.chain(*parts)) for parts in itertools.product(*(itertools.permutations(g) for g in groups))]


def test_replicability_equals_repro_eval_rpl_figures(generated):
    con, quadruples, scores, rep_scores = generated
    for q in range(40):
        result = reproduce(con, "c", f"q{q}b", f"q{q}a", f"q{q}b2", f"q{q}a2", MEASURES, rep_campaign="c2",
                           store=False)
        assert result.kind == "replicability"
        ours = _figures(result)
        assert not any(statistic in ("KTU", "RBO", "RMSE") for _, statistic, _ in ours)
        orig = {"b": scores[f"q{q}b"], "a": scores[f"q{q}a"]}
        rep = {"b": rep_scores[f"q{q}b2"], "a": rep_scores[f"q{q}a2"]}
        for measure, value in ttest(orig["b"], rep["b"], rpd=False).items():
            assert _close(ours[("baseline", "p_value", measure)], value)
        for measure, value in ER(orig["a"], orig["b"], rep["a"], rep["b"]).items():
            assert _close(ours[("effect", "ER", measure)], value)
        for measure, value in DRI(orig["a"], orig["b"], rep["a"], rep["b"]).items():
            assert _close(ours[("effect", "DeltaRI", measure)], value)


def test_stored_results_hold_the_printed_figures_and_null_for_undefined(generated):
    con = generated[0]
    result = reproduce(con, "c", "q0b", "q0a", "q0b2", "q0a2", MEASURES)  # q0: identical reproduction
    stored = con.execute("select pair, statistic, measure, value from repro_results where repro_id = $i "
                         "order by all", {"i": result.repro_id}).fetchall()
    assert len(stored) == len(result.results)
    assert ("baseline", "p_value", "AP", 1.0) in stored  # repro_eval: identical score distributions
    ers = [row for row in stored if row[1] == "ER"]
    assert all(row[3] is None or math.isfinite(row[3]) for row in ers)
    assert con.execute("select kind, trim_depth, rbo_depth, rbo_p from repro_experiments where repro_id = $i",
                       {"i": result.repro_id}).fetchall() == [("reproducibility", 1000, 1000, 0.95)]


def test_sample_reproduction_equals_repro_eval_rpd_evaluator(tmp_path):
    """The worked example of docs/reproducibility.md: the sample campaign's indri-ql (baseline) and
    indri-rm (advanced), "reproduced" by perturbing their scores, through repro_eval's
    RpdEvaluator on the files (trim, evaluate, ktu, rbo, rmse, nrmse, er, dri, ttest)."""
    from repro_eval.Evaluator import RpdEvaluator
    import ir_measures

    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(gzip.decompress(sample.path("qrels.adhoc.txt.gz").read_bytes()))
    paths = {}
    for name in ("indri-ql", "indri-rm"):
        frame = pd.read_csv(sample.path(f"runs/{name}.txt.gz"), sep=r"\s+", header=None,
                            names=["topic", "q0", "doc", "rank", "score", "tag"], dtype={"topic": str})
        frame = frame.sort_values(["topic", "score"], ascending=[True, False], kind="stable")
        paths[name] = tmp_path / f"{name}.txt"
        frame.to_csv(paths[name], sep=" ", header=False, index=False)
        rep = perturbed(frame)
        paths[name + "-rep"] = tmp_path / f"{name}-rep.txt"
        rep.to_csv(paths[name + "-rep"], sep=" ", header=False, index=False)
    con = pyeval.connect()
    load_qrels(con, "web", qrels)
    load_runs(con, "web", [paths[n] for n in paths], names=list(paths))
    result = reproduce(con, "web", "indri-ql", "indri-rm", "indri-ql-rep", "indri-rm-rep", MEASURES)
    ours = _figures(result)
    rpd = RpdEvaluator(qrels_orig_path=str(qrels), run_b_orig_path=str(paths["indri-ql"]),
                       run_a_orig_path=str(paths["indri-rm"]), run_b_rep_path=str(paths["indri-ql-rep"]),
                       run_a_rep_path=str(paths["indri-rm-rep"]))
    rpd.measures = [ir_measures.parse_measure(m) for m in MEASURES]
    rpd.trim()
    rpd.evaluate()
    ktu, rbo, rmse, nrmse, ttests, er, dri = (rpd.ktu(), rpd.rbo(), rpd.rmse(), rpd.nrmse(), rpd.ttest(), rpd.er(),
                                              rpd.dri())
    for pair in ("baseline", "advanced"):
        assert _close(ours[(pair, "KTU", None)], ktu[pair])
        assert _close(ours[(pair, "RBO", None)], rbo[pair])
        for measure in MEASURES:
            assert _close(ours[(pair, "RMSE", measure)], rmse[pair][measure])
            assert _close(ours[(pair, "nRMSE", measure)], nrmse[pair][measure])
            assert _close(ours[(pair, "p_value", measure)], ttests[pair][measure])
    for measure in MEASURES:
        assert _close(ours[("effect", "ER", measure)], er[measure])
        assert _close(ours[("effect", "DeltaRI", measure)], dri[measure])


def perturbed(frame: pd.DataFrame, seed: int = 7) -> pd.DataFrame:
    """A "reproduction" of a run: its scores plus Gaussian noise (sd 0.3 of a score's spread
    within the topic), re-sorted by score (what docs/reproducibility.md's example does)."""
    rng = np.random.default_rng(seed)
    spread = frame.groupby("topic")["score"].transform("std").fillna(1.0)
    out = frame.assign(score=(frame["score"] + rng.normal(0, 1, len(frame)) * 0.3 * spread).round(4),
                       tag=frame["tag"].astype(str) + "-rep")
    out = out.sort_values(["topic", "score"], ascending=[True, False], kind="stable")
    out["rank"] = out.groupby("topic").cumcount() + 1
    return out


def test_ktu_of_long_lists_is_scipys_kendalltau(monkeypatch):
    """Past the pairwise array's size KTU is scipy's O(n log n) kendalltau: the same value."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(5)
    n = 300
    codes = rng.permutation(2 * n)
    x, y = codes[:n], np.concatenate([codes[:n // 2], codes[n: n + n // 2]])[rng.permutation(n)]
    topic = np.zeros(n, dtype=np.int64)
    lists = formulas.RankedLists(("t",), (topic, topic), (np.arange(1, n + 1),) * 2, (x, y),
                                 (np.arange(1, n + 1),) * 2, (np.arange(1, n + 1),) * 2)
    pairwise = formulas.ktu(lists)[0]
    monkeypatch.setattr(formulas, "_KTU_PAIRWISE", 10)
    assert formulas.ktu(lists)[0] == pytest.approx(pairwise, abs=1e-12) == pytest.approx(kendalltau(x, y).statistic)


def test_rbo_with_ties_expands_tie_groups_a_block_at_a_time(monkeypatch):
    """A run of constant scores is one tie group: its depths are expanded in blocks of bounded
    size, with the same values as in one block (here against the closed form for two identical
    all-tied lists of n: X_d = d^2 / n, each document in the prefix with probability d / n)."""
    n, p, depth = 50, 0.9, 60
    topic = np.zeros(n, dtype=np.int64)
    ranks = np.arange(1, n + 1)
    same = (topic, topic), (ranks, ranks), (np.arange(n),) * 2, (np.ones(n, dtype=np.int64),) * 2, (np.full(n, n),) * 2
    lists = formulas.RankedLists(("t",), *same)
    d = np.arange(1, depth + 1)
    overlap = np.minimum(d, n) ** 2 / n
    expected = np.sum(p ** (d - 1) * overlap / d) / np.sum(p ** (d - 1))
    whole = formulas.rbo_ties(lists, depth, p)[0]
    monkeypatch.setattr(formulas, "_EXPANDED", 7)
    assert formulas.rbo_ties(lists, depth, p)[0] == pytest.approx(whole, abs=1e-12) == pytest.approx(expected, abs=1e-12)
