"""Label, score and ranking agreement of judgment sets (docs/judgments.md sections 3-5) against
their oracles: scikit-learn's cohen_kappa_score, the krippendorff package, trectools' TrecQrel,
scipy.stats and the project's own tau_ap; derived sets against pandas."""
from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

import pyeval
from pyeval import judgments
from pyeval.errors import PyevalError
from pyeval.resampling.correlation import tau_ap

from .conftest import FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"


def graded_pair(seed: int = 7, topics: int = 6, docs: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two graded judges (levels 0-3) of the same pool, the second a noisy copy of the first;
    each leaves out some documents the other judged."""
    rng = np.random.default_rng(seed)
    rows = [(f"t{t}", f"d{t}-{d}") for t in range(topics) for d in range(docs)]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id"])
    frame["relevance"] = rng.choice(4, size=len(frame), p=[0.55, 0.2, 0.15, 0.1])
    noisy = frame.copy()
    shift = rng.choice([-1, 0, 0, 0, 1], size=len(frame))
    noisy["relevance"] = np.clip(frame["relevance"] + shift, 0, 3)
    keep_a = rng.random(len(frame)) > 0.05
    keep_b = rng.random(len(frame)) > 0.08
    return frame[keep_a].reset_index(drop=True), noisy[keep_b].reset_index(drop=True)


@pytest.fixture
def pair(con):
    reference, candidate = graded_pair()
    pyeval.load_qrels(con, "g", reference)
    pyeval.load_qrels(con, "g", candidate, judgment_set="llm")
    both = reference.merge(candidate, on=["query_id", "doc_id"], suffixes=("_r", "_c"))
    return con, reference, candidate, both


def _overall(result, coefficient, threshold=None):
    rows = result.agreement[result.agreement["topic_id"].isna() & (result.agreement["coefficient"] == coefficient)]
    if threshold is not None:
        rows = rows[rows["threshold"] == threshold]
    assert len(rows) == 1
    return rows.iloc[0]


def test_kappa_and_alpha_match_scikit_learn_and_krippendorff_overall_and_per_topic(pair):
    con, reference, candidate, both = pair
    result = judgments.label_agreement(con, "g", "official", "llm", threshold=2)
    for topic, part in [(None, both), *both.groupby("query_id")]:
        rows = result.agreement[(result.agreement["topic_id"].isna() if topic is None
                                 else result.agreement["topic_id"] == topic)]
        value = {(r.coefficient, None if pd.isna(r.threshold) else int(r.threshold)): r.value
                 for r in rows.itertuples(index=False)}
        a, b = part["relevance_r"].to_numpy(), part["relevance_c"].to_numpy()
        assert value["cohen_kappa", None] == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
        assert value["cohen_kappa_linear", None] == pytest.approx(cohen_kappa_score(a, b, weights="linear"), abs=1e-12)
        assert value["cohen_kappa_quadratic", None] == pytest.approx(
            cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12)
        for threshold in (1, 2, 3):  # 0|123, 01|23, 012|3
            assert value["cohen_kappa_binary", threshold] == pytest.approx(
                cohen_kappa_score(a >= threshold, b >= threshold), abs=1e-12)
        assert value["raw_agreement", None] == pytest.approx(np.mean(a == b), abs=1e-12)
        for level in ("nominal", "ordinal", "interval"):
            assert value[f"krippendorff_alpha_{level}", None] == pytest.approx(
                krippendorff.alpha(reliability_data=np.vstack([a, b]).astype(float), level_of_measurement=level),
                abs=1e-9)
    overall = _overall(result, "raw_agreement")
    assert overall.units == len(both)
    assert overall.reference_only == len(reference) - len(both)
    assert overall.candidate_only == len(candidate) - len(both)
    assert result.thresholds == [1, 2, 3]


def test_confusion_counts_and_relevant_set_overlap(pair):
    con, reference, candidate, both = pair
    result = judgments.label_agreement(con, "g", "official", "llm", threshold=2)
    cells = result.confusion[result.confusion["topic_id"].isna()].dropna(subset=["reference_level", "candidate_level"])
    matrix = np.zeros((4, 4), dtype=int)
    for row in cells.itertuples(index=False):
        matrix[int(row.reference_level), int(row.candidate_level)] = row.documents
    np.testing.assert_array_equal(matrix, confusion_matrix(both["relevance_r"], both["relevance_c"], labels=[0, 1, 2, 3]))
    keys = ["query_id", "doc_id"]
    relevant_r = set(map(tuple, reference.loc[reference["relevance"] >= 2, keys].to_numpy()))
    relevant_c = set(map(tuple, candidate.loc[candidate["relevance"] >= 2, keys].to_numpy()))
    assert _overall(result, "jaccard_relevant", 2).value == pytest.approx(
        len(relevant_r & relevant_c) / len(relevant_r | relevant_c))
    assert _overall(result, "overlap_relevant", 2).value == pytest.approx(
        len(relevant_r & relevant_c) / min(len(relevant_r), len(relevant_c)))
    # the relevant sets' coefficients at every threshold at once, as binary kappa
    for threshold in result.thresholds:
        relevant_r = set(map(tuple, reference.loc[reference["relevance"] >= threshold, keys].to_numpy()))
        relevant_c = set(map(tuple, candidate.loc[candidate["relevance"] >= threshold, keys].to_numpy()))
        assert _overall(result, "jaccard_relevant", threshold).value == pytest.approx(
            len(relevant_r & relevant_c) / len(relevant_r | relevant_c)), threshold
        assert _overall(result, "overlap_relevant", threshold).value == pytest.approx(
            len(relevant_r & relevant_c) / min(len(relevant_r), len(relevant_c))), threshold


def test_binary_kappa_and_confusion_match_trectools(con, tmp_path):
    from trectools import TrecQrel

    reference = pd.read_csv(QRELS, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                            dtype={"query_id": str, "doc_id": str})
    rng = np.random.default_rng(3)
    candidate = reference.copy()
    flip = rng.random(len(candidate)) < 0.1
    candidate.loc[flip, "relevance"] = 1 - candidate.loc[flip, "relevance"]
    candidate = candidate[rng.random(len(candidate)) > 0.1]
    paths = []
    for name, frame in (("a", reference), ("b", candidate)):
        path = tmp_path / f"{name}.qrels"
        frame[["query_id", "iteration", "doc_id", "relevance"]].to_csv(path, sep=" ", header=False, index=False)
        paths.append(path)
    pyeval.load_qrels(con, "q", paths[0])
    pyeval.load_qrels(con, "q", paths[1], judgment_set="second")
    result = judgments.label_agreement(con, "q", "official", "second")
    a, b = TrecQrel(str(paths[0])), TrecQrel(str(paths[1]))
    assert _overall(result, "cohen_kappa_binary", 1).value == pytest.approx(a.check_kappa(b), abs=1e-12)
    assert _overall(result, "cohen_kappa", None).value == pytest.approx(a.check_kappa(b), abs=1e-12)
    assert _overall(result, "raw_agreement").value == pytest.approx(a.check_agreement(b), abs=1e-12)
    cells = result.confusion[result.confusion["topic_id"].isna()].dropna(subset=["reference_level", "candidate_level"])
    ours = np.zeros((2, 2), dtype=int)
    for row in cells.itertuples(index=False):
        ours[int(row.reference_level), int(row.candidate_level)] = row.documents
    np.testing.assert_array_equal(ours, a.check_confusion_matrix(b, labels=[0, 1]))


def test_undefined_coefficients_are_null_with_a_warning_never_zero(con):
    frame = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [0, 0, 0]})
    pyeval.load_qrels(con, "z", frame)
    pyeval.load_qrels(con, "z", frame.assign(relevance=[0, 0, 0]), judgment_set="same")
    result = judgments.label_agreement(con, "z", "official", "same")
    kappa = _overall(result, "cohen_kappa")
    assert kappa.value is None or pd.isna(kappa.value)
    assert "one category" in kappa.warning
    assert pd.isna(_overall(result, "jaccard_relevant", 1).value)
    assert _overall(result, "raw_agreement").value == 1.0


def _campaign_with_runs(con, topics=8, runs=6, seed=11):
    """An ad hoc campaign whose runs retrieve from the judged pool, and a stricter judge."""
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(f"q{t}", f"d{t}-{d}", int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])))
                          for t in range(topics) for d in range(30)], columns=["query_id", "doc_id", "relevance"])
    pyeval.load_qrels(con, "r", qrels)
    strict = qrels.assign(relevance=(qrels["relevance"] >= 2).astype(int))
    pyeval.load_qrels(con, "r", strict, judgment_set="strict")
    for j in range(runs):
        rows = []
        for t in range(topics):
            docs = rng.permutation(30)[:15]
            rows += [(f"q{t}", f"d{t}-{d}", 15 - i + j * 0.01) for i, d in enumerate(docs)]
        run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        pyeval.load_run(con, "r", run, name=f"run{j}")
    return qrels, strict


def test_ranking_agreement_matches_scipy_and_tau_ap(con):
    _campaign_with_runs(con)
    result = judgments.compare(con, "r", "official", ["strict"], ["AP"], top_k=(4,))
    part = result.rankings["strict", "AP"]
    reference = pyeval.evaluate(con, "r", ["AP"], store=False).means.set_index("run_id")["value"]
    candidate = pyeval.evaluate(con, "r", ["AP"], judgment_set="strict", store=False).means.set_index("run_id")["value"]
    runs = list(reference.index)
    a, b = reference[runs].to_numpy(), candidate[runs].to_numpy()
    value = {(r.statistic, None if pd.isna(r.top_k) else int(r.top_k)): r.value for r in part.table.itertuples()}
    assert value["kendall_tau_b", None] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert value["spearman_rho", None] == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert value["pearson_r", None] == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    assert value["tau_ap", None] == pytest.approx(tau_ap(a, b, runs), abs=1e-12)
    top = np.argsort(-a, kind="stable")[:4]
    assert value["kendall_tau_b", 4] == pytest.approx(stats.kendalltau(a[top], b[top]).statistic, abs=1e-12)
    best = runs[int(np.argmax(a))]
    assert value["reference_best_run_rank", None] == 1 + list(candidate.sort_values(ascending=False).index).index(best)
    d = b - a
    assert value["bland_altman_bias_run_means", None] == pytest.approx(d.mean())
    assert value["bland_altman_upper_run_means", None] == pytest.approx(d.mean() + 1.96 * d.std(ddof=1))
    # stored: one comparison of labels, one of scores, every row named
    assert con.execute("select comparison, measure from judgment_comparisons order by comparison_id").fetchall() == [
        ("labels", None), ("scores", "AP")]
    stored = con.execute("select statistic, top_k, value from judgment_ranking_agreement "
                         "where statistic = 'kendall_tau_b' order by top_k nulls first").fetchall()
    assert [row[:2] for row in stored] == [("kendall_tau_b", None), ("kendall_tau_b", 4)]
    assert str(result.summary()["reference_best_run_rank"].dtype) == "Int64"
    assert result.table("latex").startswith("\\begin{tabular}") or "\\toprule" in result.table("latex")


def test_guards_store_a_warning_and_null(con):
    _campaign_with_runs(con, runs=2)
    result = judgments.compare(con, "r", "official", ["strict"], ["P@5"])
    table = result.rankings["strict", "P@5"].table
    tau = table[(table["statistic"] == "kendall_tau_b") & table["top_k"].isna()].iloc[0]
    assert pd.isna(tau.value) and "fewer than 3 runs" in tau.warning
    assert con.execute("select count(*) from judgment_ranking_agreement where statistic = 'kendall_tau_b' "
                       "and value is null and warning like 'fewer than 3 runs%'").fetchone() == (1,)


def test_missing_topics_error_warn_or_skip(con):
    qrels, strict = _campaign_with_runs(con)
    pyeval.load_qrels(con, "r", strict[strict["query_id"] != "q0"], judgment_set="partial")
    with pytest.raises(PyevalError, match="topics scored under the reference set only"):
        judgments.compare(con, "r", "official", ["partial"], ["AP"], store=False)
    with pytest.warns(pyeval.PyevalWarning, match="1 topics scored under the reference set only"):
        result = judgments.compare(con, "r", "official", ["partial"], ["AP"], on_missing="warn")
    assert result.rankings["partial", "AP"].table["topics"].iloc[0] == 7
    assert "reference set only" in con.execute(
        "select warnings from judgment_comparisons where comparison = 'scores'").fetchone()[0]
    result = judgments.compare(con, "r", "official", ["partial"], ["AP"], on_missing="skip", store=False)
    assert result.rankings["partial", "AP"].warnings == []


def test_all_tied_after_a_top_k_cut_is_null_with_a_warning():
    from pyeval.judgments.ranking import _correlations

    found = _correlations(np.array([0.5, 0.5, 0.5]), np.array([0.1, 0.2, 0.3]), ["a", "b", "c"])
    assert all(value is None and "same mean" in warning for value, warning in found.values())


def test_derived_sets_follow_their_rules_and_record_their_parents(pair):
    con, reference, candidate, both = pair
    keys = ["query_id", "doc_id"]

    def stored(name):
        return con.execute("select topic_id, doc_id, level from qrels_by_set where judgment_set = $s order by all",
                           {"s": name}).fetchall()

    judgments.derive(con, "g", "bin2", "binarise", ["official"], threshold=2)
    assert stored("bin2") == sorted((q, d, int(r >= 2)) for q, d, r in reference[keys + ["relevance"]].to_numpy())
    judgments.derive(con, "g", "filled", "fill", ["official", "llm"])
    merged = pd.concat([reference, candidate]).drop_duplicates(keys, keep="first")
    assert stored("filled") == sorted(map(tuple, merged[keys + ["relevance"]].to_numpy().tolist()))
    judgments.derive(con, "g", "lenient", "union", ["official", "llm"], rule="max")
    lenient = pd.concat([reference, candidate]).groupby(keys, as_index=False)["relevance"].max()
    assert stored("lenient") == sorted(map(tuple, lenient.to_numpy().tolist()))
    judgments.derive(con, "g", "common", "common", ["official", "llm"])
    assert stored("common") == sorted(map(tuple, both[keys + ["relevance_r"]].to_numpy().tolist()))
    excluded = reference[keys].head(10).rename(columns={"query_id": "topic_id"})
    judgments.derive(con, "g", "minus", "minus", ["official"], excluded=excluded)
    assert len(stored("minus")) == len(reference) - 10
    assert con.execute("select parent_sets, derivation, parameters from judgment_sets where judgment_set = 'lenient'"
                       ).fetchone() == (["official", "llm"], "union", '{"rule": "max"}')
    before = snapshot(con)
    with pytest.raises(PyevalError, match="already has judgment set 'bin2'"):
        judgments.derive(con, "g", "bin2", "binarise", ["official"], threshold=2)
    with pytest.raises(PyevalError, match="has no judgment set 'nope'"):
        judgments.derive(con, "g", "x", "binarise", ["nope"], threshold=2)
    with pytest.raises(PyevalError, match="takes 2 parent sets"):
        judgments.derive(con, "g", "x", "fill", ["official"])
    assert snapshot(con) == before


def test_the_hole_list_names_unjudged_documents_above_the_depth(con):
    pyeval.load_qrels(con, "h", QRELS)
    pyeval.load_run(con, "h", RUN, name="a")
    found = judgments.holes(con, "h", depth=5)
    ranked = con.execute("select topic_id, doc_id, rank from ranked_entries where ordering = 'trec' and rank <= 5"
                         ).df()
    judged = con.execute("select topic_id, doc_id from qrels where level >= 0").df()
    expected = ranked.merge(judged, how="left", indicator=True).query("_merge == 'left_only'")
    assert sorted(zip(found["topic_id"], found["doc_id"])) == sorted(zip(expected["topic_id"], expected["doc_id"]))
    assert (found["best_rank"] <= 5).all()
    assert found.equals(found.sort_values(["topic_id", "best_rank", "doc_id"], ignore_index=True))
