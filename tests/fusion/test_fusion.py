"""Fusion (pyeval.fusion, sql/fusion/) against ranx's fuse and trectools' fusion functions on the
same runs, value by value and order by order, and the stored, derived runs' rules."""
from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval import fusion
from pyeval.errors import PyevalError

TOPICS = [f"t{i}" for i in range(6)]
RUNS = ("a", "b", "c")


def _runs() -> dict[str, pd.DataFrame]:
    """Three runs with distinct continuous scores (no ties: ranx's input order among equal
    scores is numba's unstable argsort), overlapping documents, lists of different lengths."""
    rng = np.random.default_rng(29)
    runs = {}
    for name in RUNS:
        rows = []
        for topic in TOPICS:
            for doc in rng.choice(80, size=int(rng.integers(20, 45)), replace=False):
                rows.append((topic, f"d{doc:02d}", float(rng.normal(3.0, 2.0))))
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return runs


@pytest.fixture(scope="module")
def campaign():
    con = pyeval.connect()
    rng = np.random.default_rng(3)
    qrels = pd.DataFrame([(t, f"d{d:02d}", int(rng.integers(0, 3))) for t in TOPICS for d in range(80)],
                         columns=["query_id", "doc_id", "relevance"])
    pyeval.load_qrels(con, "c", qrels)
    pyeval.load_qrels(con, "other", qrels)
    runs = _runs()
    for name, frame in runs.items():
        pyeval.load_run(con, "c", frame, name=name)
    pyeval.load_run(con, "other", runs["a"], name="elsewhere")
    yield con, runs
    con.close()


def _as_dict(frame: pd.DataFrame) -> dict:
    found: dict = {}
    for topic, doc, score in frame[["query_id", "doc_id", "score"]].itertuples(index=False):
        found.setdefault(topic, {})[doc] = score
    return found


def _same(ours: pd.DataFrame, theirs: dict, *, exact: bool = True) -> None:
    """Every topic: the same documents, the same value for each (to the last bit when
    ``exact``), and ours in descending score order (the order of theirs up to ties)."""
    assert sorted(ours["topic_id"].unique()) == sorted(theirs)
    for topic, group in ours.groupby("topic_id"):
        expected = theirs[topic]
        assert set(group["doc_id"]) == set(expected), topic
        values = np.array([expected[doc] for doc in group["doc_id"]])
        if exact:
            assert (values == group["score"].to_numpy()).all(), topic
        else:
            np.testing.assert_allclose(group["score"].to_numpy(), values, rtol=1e-12, atol=1e-12)
        assert list(group["rank"]) == list(range(1, len(group) + 1))
        order = sorted(expected.items(), key=lambda item: (-item[1], [-ord(ch) for ch in item[0]]))
        if exact:  # ties broken by docno descending, as trec_eval ranks
            assert list(group["doc_id"]) == [doc for doc, _ in order], topic


RANX_CASES = [
    ("combsum", "sum", "min-max", {}),
    ("combmnz", "mnz", "min-max", {}),
    ("combanz", "anz", "max", {}),
    ("combmax", "max", "sum", {}),
    ("combmin", "min", "rank", {}),
    ("combmed", "med", "min-max", {}),
    ("wsum", "wsum", "min-max", {"weights": [0.2, 0.5, 0.3]}),
    ("combsum", "sum", "zmuv", {}),
    ("combsum", "sum", None, {}),
    ("rrf", "rrf", "min-max", {"k": 60}),
    ("rrf", "rrf", "min-max", {"k": 10}),
    ("isr", "isr", "min-max", {}),
    ("log-isr", "log_isr", "min-max", {}),
    ("borda", "bordafuse", "min-max", {}),
    ("borda", "w_bordafuse", "min-max", {"weights": [0.2, 0.5, 0.3]}),
    ("combgmnz", "gmnz", "min-max", {"gamma": 0.7}),
    ("combgmnz", "gmnz", "max", {"gamma": 2.0}),
    ("logn-isr", "logn_isr", "min-max", {"sigma": 0.01}),
    ("logn-isr", "logn_isr", "min-max", {"sigma": 0.5}),
    ("rbp", "rbc", "min-max", {"phi": 0.8}),
    ("rbp", "rbc", "min-max", {"phi": 0.5}),
    ("combsum", "sum", "min-max-inverted", {}),
    ("combmnz", "mnz", "min-max-inverted", {}),
    ("combsum", "sum", "borda", {}),
    ("combmnz", "mnz", "borda", {}),
    ("combmed", "med", "borda", {}),
    ("wsum", "wsum", "borda", {"weights": [0.2, 0.5, 0.3]}),
]
#: ranx's parameter names that pyeval's recipe spells otherwise.
RECIPE_NAMES = {"phi": "p"}


@pytest.mark.engines  # ranx comes with the test-engines extra
@pytest.mark.parametrize("method,ranx_method,norm,params", RANX_CASES)
def test_each_method_equals_ranx_fuse(campaign, method, ranx_method, norm, params):
    ranx = pytest.importorskip("ranx")
    con, runs = campaign
    conventions = {RECIPE_NAMES.get(key, key): value for key, value in params.items()}
    ours = fusion.fuse(con, "c", list(RUNS), method, norm=norm or "none", **conventions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # each input in trec order (score descending, docno descending): rbc reads ranks from the dict's order
        theirs = ranx.fuse([ranx.Run.from_dict(_as_dict(runs[name].sort_values(
            ["score", "doc_id"], ascending=False))) for name in RUNS], norm=norm,
                           method=ranx_method, params=params).to_dict()
    # within 1e-12: numpy's pairwise mean (z-scores); numba's phi ** i by repeated multiplication (rbc)
    _same(ours, theirs, exact=norm != "zmuv" and ranx_method != "rbc")


def test_trectools_combos_rrf_and_rbp(campaign, tmp_path):
    trectools = pytest.importorskip("trectools")
    from trectools import TrecRun, fusion as tt_fusion

    con, runs = campaign
    files = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.txt"
        frame = runs[name].assign(q0="Q0", rank=0, tag=name)[["query_id", "q0", "doc_id", "rank", "score", "tag"]]
        frame.to_csv(path, sep=" ", header=False, index=False)
        files.append(TrecRun(str(path)))
    # trectools reads a run ranked by score desc, docno asc, 1000 deep, and breaks fused ties by docno asc
    reading = dict(input_ordering="trec-asc", input_depth=1000, output_depth=1000, tie_order="docno-asc")

    def theirs_of(run) -> dict:
        return _as_dict(run.run_data.rename(columns={"query": "query_id", "docid": "doc_id"}))

    for method, strategy in (("combsum", "sum"), ("combmax", "max"), ("combmin", "min"), ("combanz", "anz"),
                             ("combmnz", "mnz"), ("combmed", "med")):
        ours = fusion.fuse(con, "c", ["a", "b"], method, norm="none", **reading)
        _same(ours, theirs_of(tt_fusion.combos(files, strategy=strategy)), exact=False)
    for method, fused, extra in (("rrf", tt_fusion.reciprocal_rank_fusion(files, k=60), {"k": 60}),
                                 ("rbp", tt_fusion.rank_biased_precision_fusion(files, p=0.8), {"p": 0.8})):
        ours = fusion.fuse(con, "c", ["a", "b"], method, **reading, **extra)
        expected = fused.run_data.rename(columns={"query": "query_id", "docid": "doc_id"})
        _same(ours, _as_dict(expected), exact=False)
        for topic, group in expected.groupby("query_id"):  # order by order, ties included
            assert list(ours[ours["topic_id"] == topic]["doc_id"]) == list(group["doc_id"])


def test_conventions_change_what_they_say(campaign):
    con, _ = campaign
    base = fusion.fuse(con, "c", ["a", "b"], "combsum", norm="min-max")
    # normalising after a positive weight: min-max cancels it
    after = fusion.fuse(con, "c", ["a", "b"], "wsum", weights=[3.0, 1.0], norm="min-max", norm_stage="after")
    np.testing.assert_allclose(after["score"], base["score"], rtol=1e-12, atol=1e-12)
    before = fusion.fuse(con, "c", ["a", "b"], "wsum", weights=[3.0, 1.0], norm="min-max")
    assert not np.allclose(before.sort_values(["topic_id", "doc_id"])["score"],
                           base.sort_values(["topic_id", "doc_id"])["score"])
    # absent 'zero' lowers CombMIN to 0 for every document one input missed; 'none' does not
    zero = fusion.fuse(con, "c", ["a", "b"], "combmin", norm="min-max", absent="zero")
    none = fusion.fuse(con, "c", ["a", "b"], "combmin", norm="min-max")
    assert len(zero) == len(none) and (zero["score"] <= none["score"].max()).all()
    assert (zero["score"] == 0).sum() > (none["score"] == 0).sum()
    # depths
    deep = fusion.fuse(con, "c", ["a", "b"], "rrf", input_depth=5, output_depth=7)
    assert deep.groupby("topic_id")["rank"].max().max() == 7
    assert deep.groupby("topic_id").size().max() <= 7


def test_a_fused_run_is_stored_with_its_recipe_exported_and_stale_when_a_parent_changes(campaign, tmp_path):
    con, runs = campaign
    frame = fusion.fuse(con, "c", ["a", "b"], "rrf", k=60, name="hybrid")
    path = tmp_path / "hybrid.txt"
    text = fusion.export_run(con, "c", "hybrid", path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == frame.attrs["sha256"]
    assert con.execute("select source_sha256 from runs where campaign_id = 'c' and run_id = 'hybrid'"
                       ).fetchone()[0] == frame.attrs["sha256"]
    assert len(text.splitlines()) == len(frame)
    # a re-loaded export is the same run (same sha256), evaluated the same
    pyeval.load_run(con, "c", str(path), name="hybrid_file")
    assert con.execute("select count(distinct source_sha256) from runs where run_id in ('hybrid', 'hybrid_file')"
                       ).fetchone()[0] == 1
    evaluation = pyeval.evaluate(con, "c", ["nDCG@10"], runs=["hybrid", "hybrid_file"])
    values = evaluation.means.set_index("run_id")["value"]
    assert values["hybrid"] == values["hybrid_file"]
    recipe = fusion.store.derivation(con, "c", "hybrid")
    assert recipe.method == "rrf" and recipe.runs == ("a", "b") and recipe.k == 60
    # a parent replaced by other content: the fused run and its results turn stale
    pyeval.load_run(con, "c", runs["a"].iloc[::2], name="a", replace=True)
    assert fusion.derived_runs(con, "c").set_index("run_id").loc["hybrid", "is_stale"]
    assert con.execute("select count(*) from stale_results where run_id = 'hybrid'").fetchone()[0] == 1
    fusion.refresh(con, "c", "hybrid")
    assert not fusion.derived_runs(con, "c").set_index("run_id").loc["hybrid", "is_stale"]
    # replaced or deleted only with its derivation; a parent is not deleted from under it
    with pytest.raises(PyevalError, match="is a fused run"):
        pyeval.load_run(con, "c", str(path), name="hybrid", replace=True)
    with pytest.raises(PyevalError, match="input of fused run"):
        fusion.delete_run(con, "c", "a")
    fusion.delete_run(con, "c", "hybrid")
    assert con.execute("select count(*) from run_derivations where run_id = 'hybrid'").fetchone()[0] == 0
    assert con.execute("select count(*) from run_entries where run_id = 'hybrid'").fetchone()[0] == 0
    fusion.delete_run(con, "c", "hybrid_file")
    pyeval.load_run(con, "c", runs["a"], name="a", replace=True)


@pytest.mark.parametrize("call,message", [
    (dict(runs=["a", "elsewhere"], method="rrf"), "it is a run of campaign 'other'"),
    (dict(runs=["a", "b"], method="wsum", weights=[1.0]), "1 weights for 2 runs"),
    (dict(runs=["a", "b"], method="wsum"), "wsum needs weights"),
    (dict(runs=["a", "b"], method="rrf", k=0), "k must be a positive number"),
    (dict(runs=["a", "b"], method="gmnz", gamma=-1), "gamma must be a finite number >= 0"),
    (dict(runs=["a", "b"], method="logn_isr", sigma=2), "sigma must be between 0 and 1"),
    (dict(runs=["a"], method="rrf"), "at least two runs"),
    (dict(runs=["a", "a"], method="rrf"), "given twice"),
    (dict(runs=["a", "b"], method="condorcet"), "fusion method must be one of"),
    (dict(runs=["a", "b"], method="rrf", name="a"), "cannot replace its own input"),
    (dict(runs=["a", "b"], method="rrf", name="c", replace=True), "is a loaded run"),
])
def test_bad_recipes_get_one_line_and_change_nothing(campaign, call, message):
    con, _ = campaign
    before = con.execute("select count(*), sum(hash(run_id, doc_id, score)) from run_entries").fetchone()
    with pytest.raises(PyevalError, match=message) as caught:
        fusion.fuse(con, "c", **call)
    assert "\n" not in str(caught.value)
    assert con.execute("select count(*), sum(hash(run_id, doc_id, score)) from run_entries").fetchone() == before


def test_an_empty_input_is_refused(campaign):
    con, _ = campaign
    con.execute("insert into runs (campaign_id, run_id, source_file, source_sha256) values ('c', 'empty', 'x', 'y')")
    try:
        with pytest.raises(PyevalError, match="has no entries"):
            fusion.fuse(con, "c", ["a", "empty"], "rrf")
    finally:
        con.execute("delete from runs where run_id = 'empty'")


def test_a_grid_is_one_pass_whose_points_equal_the_stored_fused_runs(campaign):
    con, _ = campaign
    recipe = fusion.Recipe("rrf", ("a", "b", "c"))
    with pytest.warns(fusion.OverfittingWarning):
        result = fusion.evaluate_grid(con, "c", recipe, ["k=5,60"], measure="nDCG@10", store=False)
    assert list(result.points["k"]) == [5.0, 60.0]
    for point in result.points.itertuples():
        fusion.fuse(con, "c", ["a", "b", "c"], "rrf", k=point.k, name="point")
        stored = pyeval.evaluate(con, "c", ["nDCG@10"], runs=["point"], store=False).means["value"].iloc[0]
        assert stored == pytest.approx(point.train_mean, abs=1e-12)
        fusion.delete_run(con, "c", "point")
    weights = fusion.parse_grid(["weights=0.1:0.9:0.4"], 2)["weights"]
    assert weights == [(0.1, 0.9), (0.5, 0.5), (0.9, 0.1)]
    assert len(fusion.parse_grid(["weights=0:1:0.5"], 3)["weights"]) == 6
    split = fusion.evaluate_grid(con, "c", fusion.Recipe("wsum", ("a", "b"), weights=(1, 1)),
                                 ["weights=0.2:0.8:0.3"], train_topics=TOPICS[:3], keep_best="tuned")
    assert split.split.startswith("train-topics") and split.kept_run_id == "tuned"
    assert con.execute("select topic_split, best_point from fusion_grids where grid_id = $g",
                       {"g": split.grid_id}).fetchone() == (split.split, split.best_point)
    assert con.execute("select count(*) from fusion_grid_points where grid_id = $g",
                       {"g": split.grid_id}).fetchone()[0] == 3
    assert fusion.store.derivation(con, "c", "tuned").weights == split.points.loc[split.best_point - 1, "weights"]
    fusion.delete_run(con, "c", "tuned")
