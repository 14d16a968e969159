"""Pools, coverage and leave-one-group-out (issue 27; migration 0014; docs/pools.md). Oracles:
NIST testcoll-tools' make-pools.pl and annotate-qrels.pl outputs on generated runs
(tests/fixtures/pools/), trectools' TrecPoolMaker.make_pool (topX) and check_qrel_coverage, a
port of make-pools.pl's sampling loop for the strata, cases worked by hand, and pyeval's own
evaluation against a qrels file written by gloo-eval.pl's rule."""
from __future__ import annotations

import hashlib
import io
from collections import defaultdict

import pandas as pd
import pytest
from click.testing import CliRunner

import pyeval
from pyeval import pools
from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.loaders import RunMetadata

from .conftest import FIXTURES, snapshot

DATA = FIXTURES / "pools"
RUNS = ["r0", "r1", "r2", "r3", "r4", "r5"]
POOLED = ["r0", "r1", "r2", "r3", "r4"]


def teams() -> dict[str, str]:
    return dict(line.split() for line in (DATA / "teams.txt").read_text().splitlines())


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "c", DATA / "qrels.txt")
    for run, team in teams().items():
        pyeval.load_runs(con, "c", [DATA / f"{run}.txt"], names=[run], metadata=RunMetadata(team=team))
    return con


def perl_pool(name: str) -> pd.DataFrame:
    """make-pools.pl's output: topic Q0 0 terabyte docno depth score -1 run, in pooling order."""
    rows = [line.split() for line in (DATA / name).read_text().splitlines()]
    return pd.DataFrame({"topic_id": [r[0] for r in rows], "doc_id": [r[4] for r in rows],
                         "best_rank": [int(r[5]) for r in rows], "first_run": [r[8] for r in rows]})


def pool_frame(con, name: str) -> pd.DataFrame:
    """The stored pool in pooling order (best rank, then the first run's position)."""
    return con.execute(
        "select topic_id, doc_id, best_rank::bigint as best_rank, first_run from pool_documents "
        "join pool_runs using (campaign_id, pool_name) where pool_name = $p and pool_runs.run_id = first_run "
        "order by topic_id, best_rank, run_position", {"p": name}).df()


def test_depth_pool_matches_make_pools(campaign):
    assert pools.build(campaign, "c", "p", depth=10, runs=POOLED) == 115
    expected = perl_pool("make-pools.depth10.txt")
    pd.testing.assert_frame_equal(pool_frame(campaign, "p"), expected)


def test_budget_cuts_in_pooling_order_as_make_pools(campaign):
    pools.build(campaign, "c", "b", depth=10, runs=POOLED, budget=25, strata=["1:10:1"])
    pd.testing.assert_frame_equal(pool_frame(campaign, "b"), perl_pool("make-pools.budget25.txt"))


def test_contributors_match_annotate_qrels(campaign):
    """annotate-qrels.pl: each judged document with the number and names of the groups (teams)
    whose pooled runs retrieved it within their depth."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    stored = {(t, d): list(teams) for t, d, teams in campaign.execute(
        "select topic_id, doc_id, teams from pool_documents").fetchall()}
    for line in (DATA / "annotate-qrels.txt").read_text().splitlines():
        topic, _, doc, _, count, *groups = line.split()
        assert stored.get((topic, doc), []) == sorted(groups), (topic, doc)
        assert int(count) == len(groups)


def test_unique_documents_follow_gloo_eval(campaign):
    """gloo-eval.pl leaves out the judged documents whose only group is the one left out."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    expected = defaultdict(set)
    for line in (DATA / "annotate-qrels.txt").read_text().splitlines():
        topic, _, doc, _, count, *groups = line.split()
        if int(count) == 1:
            expected[groups[0]].add((topic, doc))
    unique = pools.unique_documents(campaign, "c", "p")
    got = {g: set(zip(part["topic_id"], part["doc_id"])) for g, part in unique.groupby("group_name")}
    assert got == dict(expected)
    table = pools.unique_relevant(campaign, "c", "p").set_index("team")
    assert list(table.index) == ["alpha", "beta", "gamma"]
    assert table.loc["alpha", "unique_judged"] == len(expected["alpha"])


def test_trectools_top_x_pool_and_coverage(campaign):
    trectools = pytest.importorskip("trectools")
    runs = [trectools.TrecRun(str(DATA / f"{run}.txt")) for run in POOLED]
    for depth in (1, 5, 10, 20):
        pools.build(campaign, "c", f"d{depth}", depth=depth, runs=POOLED, ordering="trec-asc")
        made = trectools.TrecPoolMaker().make_pool(runs, strategy="topX", topX=depth).pool
        expected = {(str(t), d) for t, docs in made.items() for d in docs}
        stored = set(campaign.execute("select topic_id, doc_id from pool_documents where pool_name = $p",
                                      {"p": f"d{depth}"}).fetchall())
        assert stored == expected
    frame = pools.coverage(campaign, "c", "d10")
    qrels = trectools.TrecQrel(str(DATA / "qrels.txt"))
    for run in RUNS:
        trec_run = trectools.TrecRun(str(DATA / f"{run}.txt"))
        for k in (5, 10, 20):
            ours = frame[(frame["run_id"] == run) & (frame["k"] == k)].sort_values("topic_id")["judged"].tolist()
            assert ours == trec_run.check_qrel_coverage(qrels, topX=k), (run, k)


def test_judged_fraction_is_pyevals_judged_at_k(campaign):
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    frame = pools.coverage(campaign, "c", "p")
    means = pyeval.evaluate(campaign, "c", ["Judged@5", "Judged@20"], store=False).per_topic
    for k in (5, 20):
        ours = frame[frame["k"] == k].assign(value=lambda f: f["judged"] / f["retrieved"])
        theirs = means[means["measure"] == f"Judged@{k}"]
        merged = ours.merge(theirs, on=["run_id", "topic_id"])
        assert len(merged) == 18
        assert (merged["value_x"] - merged["value_y"]).abs().max() < 1e-12
        assert (merged["unjudged_fraction"] - (1 - merged["value_y"])).abs().max() < 1e-12


def test_unique_to_team_by_hand(con, write):
    """Team X (runs a, b) and team Y (run c), depth 2: a's top 2 {d1, d2}, b's {d3, d1}, c's {d2,
    d4}. At k = 2, a's documents no other team has: d1 (d2 is c's) -> 1; c's: d4 -> 1."""
    pyeval.load_qrels(con, "h", write("q.txt", "1 0 d1 1\n1 0 d2 0\n1 0 d4 1\n"))
    for run, team, docs in (("a", "X", "d1 d2 d9"), ("b", "X", "d3 d1"), ("c", "Y", "d2 d4")):
        lines = "".join(f"1 Q0 {d} {i} {10 - i} {run}\n" for i, d in enumerate(docs.split(), 1))
        pyeval.load_runs(con, "h", [write(f"{run}.txt", lines)], names=[run], metadata=RunMetadata(team=team))
    pools.build(con, "h", "p", depth=2)
    frame = pools.coverage(con, "h", "p").set_index(["run_id", "k"])
    assert frame.loc[("a", 5), "retrieved"] == 3
    assert frame.loc[("a", 5), "judged"] == 2 and frame.loc[("a", 5), "relevant"] == 1
    assert frame.loc[("c", 5), "unique_to_team"] == 1
    assert frame.loc[("a", 5), "unique_to_team"] == 2  # d1 and d9 (c has d2 within 5)
    unique = pools.unique_relevant(con, "h", "p").set_index("team")
    assert unique.loc["X", "unique_judged"] == 1 and unique.loc["X", "unique_relevant"] == 1  # d1
    assert unique.loc["Y", "unique_judged"] == 1 and unique.loc["Y", "unique_relevant"] == 1  # d4


def _draw(seed: int, topic: str, doc: str) -> float:
    return int(hashlib.md5(f"{seed}\t{topic}\t{doc}".encode()).hexdigest()[:13], 16) / 2 ** 52


def make_pools_port(runs: dict[str, list[str]], strata, budget: int, seed: int, topic: str) -> list[str]:
    """make-pools.pl's loop for one topic (round-robin reading, first stratum wins, rate = budget
    left / the stratum's documents when it has none, budget counted down in pooling order) with
    the md5 draw in place of rand()."""
    first_depth, order = {}, []
    for depth in range(1, max(s[1] for s in strata) + 1):
        for run in runs:
            if depth <= len(runs[run]) and runs[run][depth - 1] not in first_depth:
                doc = runs[run][depth - 1]
                if any(a <= depth <= b for a, b, _ in strata):
                    first_depth[doc] = depth
                    order.append(doc)
    stratum_of = {d: next(i for i, (a, b, _) in enumerate(strata) if a <= first_depth[d] <= b) for d in order}
    counts = defaultdict(int)
    for d in order:
        counts[stratum_of[d]] += 1
    left, rates, chosen = budget, {}, []
    for d in order:
        s = stratum_of[d]
        if s not in rates:
            rates[s] = strata[s][2] if strata[s][2] is not None else left / counts[s]
        if left > 0 and _draw(seed, topic, d) <= rates[s]:
            chosen.append(d)
            left -= 1
    return chosen


@pytest.mark.parametrize("budget, strata", [(30, [(1, 5, 1.0), (6, 40, None)]),
                                            (20, [(1, 3, 1.0), (4, 10, 0.5), (11, 40, None)]),
                                            (12, [(1, 20, None)])])
def test_strata_sampling_as_make_pools(campaign, budget, strata):
    text = [f"{a}:{b}" + ("" if r is None else f":{r}") for a, b, r in strata]
    pools.build(campaign, "c", "s", depth=40, runs=POOLED, budget=budget, strata=text, seed=7)
    ranked = {run: {} for run in POOLED}
    for run in POOLED:
        for line in (DATA / f"{run}.txt").read_text().splitlines():
            topic, _, doc, rank, _, _ = line.split()
            ranked[run].setdefault(topic, []).append(doc)
    for topic in ("1", "2", "3"):
        expected = make_pools_port({r: ranked[r][topic] for r in POOLED}, strata, budget, 7, topic)
        stored = [d for d, in campaign.execute(
            "select doc_id from pool_documents join pool_runs using (campaign_id, pool_name) where pool_name = 's' "
            "and topic_id = $t and run_id = first_run order by best_rank, run_position", {"t": topic}).fetchall()]
        assert stored == expected
        assert len(stored) <= budget


def test_strata_by_hand(con, write):
    """One run d1..d6; -b 4 -s 1:2:1 -s 3:6: d1, d2 pooled; 2 left of budget over 4 documents:
    rate 0.5, each of d3..d6 kept when its draw is <= 0.5, at most 2."""
    pyeval.load_qrels(con, "h", write("q.txt", "1 0 d1 1\n"))
    lines = "".join(f"1 Q0 d{i} {i} {10 - i} r\n" for i in range(1, 7))
    pyeval.load_runs(con, "h", [write("r.txt", lines)], names=["r"])
    pools.build(con, "h", "p", budget=4, strata=["1:2:1", "3:6"], seed=1)
    kept = [d for d in ("d3", "d4", "d5", "d6") if _draw(1, "1", d) <= 0.5][:2]
    stored = [d for d, in con.execute("select doc_id from pool_documents order by best_rank").fetchall()]
    assert stored == ["d1", "d2", *kept]
    assert con.execute("select seed, budget, strata from pools").fetchone() == (1, 4, "[[1, 2, 1.0], [3, 6, null]]")


def test_export_layout(campaign, tmp_path):
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    path = tmp_path / "pool.txt"
    assert pools.export(campaign, "c", "p", str(path)) == 115
    lines = [line.split() for line in path.read_text().splitlines()]
    assert all(len(line) == 4 and line[1] == "0" and line[3] == "-1" for line in lines)
    assert lines == sorted(lines, key=lambda line: (int(line[0]), line[2]))


def test_leave_one_team_out_equals_gloo_eval_qrels(campaign, write):
    """Each run's leave-out AP equals its AP against a qrels written by gloo-eval.pl's rule from
    annotate-qrels.pl's output (drop lines with one group, the run's team)."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    result = pools.leave_out(campaign, "c", "p", ["AP", "bpref"])
    annotated = [line.split() for line in (DATA / "annotate-qrels.txt").read_text().splitlines()]
    for team in ("alpha", "beta", "gamma", "delta"):
        kept = "".join(f"{t} 0 {d} {rel}\n" for t, _, d, rel, count, *groups in annotated
                       if not (count == "1" and groups[0] == team))
        pyeval.load_qrels(campaign, f"g-{team}", write(f"q-{team}.txt", kept))
        members = [r for r, t in teams().items() if t == team]
        for run in members:
            pyeval.load_runs(campaign, f"g-{team}", [DATA / f"{run}.txt"], names=[run])
        means = pyeval.evaluate(campaign, f"g-{team}", ["AP", "bpref"], store=False).means
        for row in means.itertuples():
            ours = result.table[(result.table["run_id"] == row.run_id) & (result.table["measure"] == row.measure)]
            assert ours["leave_out"].iloc[0] == pytest.approx(row.value, abs=1e-12), (team, row.run_id)
    table = result.table.set_index(["measure", "run_id"])
    assert table.loc[("AP", "r5"), "difference"] == 0  # delta pooled nothing
    assert not table.loc[("AP", "r5"), "pooled"] and table.loc[("AP", "r0"), "pooled"]
    row = table.loc[("AP", "r0")]
    assert row["percent_difference"] == pytest.approx(100 * (row["leave_out"] - row["official"]) / row["official"])
    sets = campaign.execute("select judgment_set, parent_sets, derivation, parameters from judgment_sets "
                            "where judgment_set like 'p.without-team.%' order by 1").fetchall()
    assert [s[0] for s in sets] == ["p.without-team.alpha", "p.without-team.beta", "p.without-team.gamma"]
    assert all(s[1] == ["official"] and s[2] == "minus" and '"pool": "p"' in s[3] for s in sets)
    stored = campaign.execute("select count(*) from pool_leave_out where pool_name = 'p'").fetchone()[0]
    assert stored == 12
    rankings = result.rankings.set_index("measure")
    from pyeval.resampling.correlation import tau_ap

    ap = result.table[result.table["measure"] == "AP"]
    assert rankings.loc["AP", "tau_ap"] == pytest.approx(tau_ap(ap["official"].to_numpy(), ap["leave_out"].to_numpy(),
                                                                list(ap["run_id"])))
    summary = result.summary("AP")
    assert "r0*" in set(summary["run"]) and "r5" in set(summary["run"])


def test_leave_one_run_out(campaign):
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    result = pools.leave_out(campaign, "c", "p", ["P@10"], grouping="run")
    table = result.table.set_index("run_id")
    assert table.loc["r0", "left_out"] == "r0"
    unique_r0 = pools.unique_documents(campaign, "c", "p", grouping="run")
    assert table.loc["r0", "removed_documents"] == (unique_r0["group_name"] == "r0").sum()


def test_bad_input_changes_nothing(campaign, con):
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    before = snapshot(con)
    cases = [
        (lambda: pools.build(con, "c", "q", depth=0), "depth must be an integer from 1 to"),
        (lambda: pools.build(con, "c", "p", depth=10), "already has pool 'p'"),
        (lambda: pools.build(con, "c", "q", runs=["nope"]), "no run named 'nope'"),
        (lambda: pools.build(con, "c", "q", strata=["3:9"]), "give budget="),
        (lambda: pools.build(con, "c", "q", strata=["9:3"]), "FROM <= TO"),
        (lambda: pools.build(con, "c", "q", run_depths={"r5": 3}, runs=POOLED), "not a pooled run"),
        (lambda: pools.coverage(con, "c", "nope"), "has no pool 'nope'"),
        (lambda: pools.leave_out(con, "c", "p", ["AP"], teams=["omega"]), "no team 'omega'"),
        (lambda: pools.leave_out(con, "c", "p", ["AP"], grouping="group"), "grouping must be one of"),
    ]
    for call, message in cases:
        with pytest.raises(PyevalError, match=message):
            call()


def test_leave_one_team_out_takes_a_run_without_a_team_as_a_group_of_its_own(con):
    """docs/pools.md: a run without a team is a group of its own, named by the run, as pool
    uniques counts it (pool loo refused such a run)."""
    pyeval.load_qrels(con, "c", DATA / "qrels.txt")
    for run, team in teams().items():
        metadata = RunMetadata(team=None if run == "r1" else team)
        pyeval.load_runs(con, "c", [DATA / f"{run}.txt"], names=[run], metadata=metadata)
    pools.build(con, "c", "p", depth=10, runs=POOLED)
    result = pools.leave_out(con, "c", "p", ["AP"])
    table = result.table.set_index("run_id")
    unique = pools.unique_documents(con, "c", "p")
    own = unique[unique["group_name"] == "r1"]
    assert len(own) > 0 and table.loc["r1", "left_out"] == "r1"
    assert table.loc["r1", "removed_documents"] == len(own)
    # its value is AP under the official set without its unique documents (the derived set)
    expected = pyeval.evaluate(con, "c", ["AP"], runs=["r1"], judgment_set="p.without-team.r1", store=False)
    assert table.loc["r1", "leave_out"] == pytest.approx(expected.means["value"].iloc[0], abs=1e-12)
    assert table.loc["r1", "leave_out"] != table.loc["r1", "official"]
    assert pools.leave_out(con, "c", "p", ["AP"], teams=["r1"], store=False).table.set_index("run_id").loc[
        "r1", "left_out"] == "r1"


def _cli_campaign(tmp_path, without_team: frozenset[str] = frozenset()):
    """Campaign c loaded by the command line (runs r0.. with their teams, but for ``without_team``);
    returns a function running a command on that warehouse."""
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, ["--db", db, *args], catch_exceptions=False)

    assert run("load", "qrels", "-C", "c", str(DATA / "qrels.txt")).exit_code == 0
    for name, team in teams().items():
        given = [] if name in without_team else ["--team", team]
        assert run("load", "run", "-C", "c", "--name", name, *given, str(DATA / f"{name}.txt")).exit_code == 0
    return run


def test_cli(tmp_path):
    run = _cli_campaign(tmp_path)
    args = ["pool", "build", "-C", "c", "--name", "p", "--depth", "10", *[x for r in POOLED for x in ("--runs", r)]]
    assert "115 documents" in run(*args).output
    bad = run("pool", "build", "-C", "c", "--name", "q", "--depth", "0")
    assert bad.exit_code == 2 and "Invalid value for '--depth': 0 is not in the range" in bad.output
    out = run("pool", "coverage", "-C", "c", "--table", "latex").output
    assert "\\begin{tabular}" in out and "r0*" in out
    out = run("pool", "loo", "-C", "c", "-m", "AP", "--format", "csv").output
    assert out.splitlines()[0] == ("measure,run,left_out,official,leave_out,difference,percent_difference,"
                                   "official_rank,leave_out_rank,rank_change")
    assert run("pool", "loo", "-C", "c", "-m", "AP", "--table", "markdown").output.startswith("| measure")
    assert "kendall_tau" in run("pool", "loo", "-C", "c", "-m", "AP", "--rankings",
                                "--plot", str(tmp_path / "loo")).output
    assert (tmp_path / "loo-AP.png").exists()
    out = run("sql", "select run_id, pooled from run_overview order by run_id").output
    assert "r5" in out



def test_cli_pool_loo_by_team_takes_a_run_loaded_without_a_team(tmp_path):
    """The issue's path: runs loaded by the CLI, one without --team; pool loo (default --by team)
    leaves it out alone, as pool uniques counts it (it refused such a run)."""
    run = _cli_campaign(tmp_path, without_team=frozenset({"r1"}))
    assert run("pool", "build", "-C", "c", "--name", "p", "--depth", "10",
               *[x for r in POOLED for x in ("--runs", r)]).exit_code == 0
    uniques = pd.read_csv(io.StringIO(run("pool", "uniques", "-C", "c", "--format", "csv").output))
    assert "r1" in set(uniques["team"])
    result = run("pool", "loo", "-C", "c", "-m", "AP", "--format", "csv")
    assert result.exit_code == 0, result.output
    table = pd.read_csv(io.StringIO(result.output)).set_index("run")  # pooled runs marked *
    assert table.loc["r1*", "left_out"] == "r1" and table.loc["r0*", "left_out"] == "alpha"
    assert table.loc["r1*", "leave_out"] < table.loc["r1*", "official"]

def test_leave_out_reads_official_values_from_a_current_stored_evaluation(campaign, tmp_path):
    """The official column is the latest current stored evaluation's mean when one was made as
    the leave-out evaluates (same set, ordering, no depth cut, unjudged kept); else evaluated."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    fresh = pools.leave_out(campaign, "c", "p", ["AP", "P@10"], store=False).table
    assert fresh["official_evaluation_id"].isna().all()
    stored = pyeval.evaluate(campaign, "c", ["AP", "P@10"]).evaluation_id
    pyeval.evaluate(campaign, "c", ["AP", "P@10"], max_depth=5)  # later, but cut: not the leave-out's values
    pyeval.evaluate(campaign, "c", ["AP"], ordering="trec-asc")  # later, another ordering
    reused = pools.leave_out(campaign, "c", "p", ["AP", "P@10"]).table
    assert set(reused["official_evaluation_id"]) == {stored}
    pd.testing.assert_frame_equal(reused.drop(columns="official_evaluation_id"),
                                  fresh.drop(columns="official_evaluation_id"), check_dtype=False)
    assert campaign.execute("select distinct official_evaluation_id from pool_leave_out").fetchall() == [(stored,)]
    # a run replaced by other content: its stored means are stale, so it is evaluated again
    changed = tmp_path / "r0.txt"
    changed.write_text("\n".join((DATA / "r0.txt").read_text().splitlines()[1:]) + "\n")
    pyeval.load_runs(campaign, "c", [changed], names=["r0"], replace=True)
    again = pools.leave_out(campaign, "c", "p", ["AP"], store=False).table.set_index("run_id")
    assert pd.isna(again.loc["r0", "official_evaluation_id"]) and again.loc["r1", "official_evaluation_id"] == stored


def judged_export(path, qrels_text: str) -> str:
    """The pool's export as assessors return it: each '-1' replaced by the document's level in
    ``qrels_text`` (0 for a document it does not judge)."""
    levels = {(t, d): rel for t, _, d, rel in (line.split() for line in qrels_text.splitlines())}
    return "".join(f"{t} 0 {d} {levels.get((t, d), '0')}\n" for t, _, d, _ in
                   (line.split() for line in path.read_text().splitlines()))


def test_judged_pool_is_linked_to_its_pool(tmp_path):
    """A judged pool loaded back names its pool in the set's provenance: found when the set
    judges exactly the pool's documents, or given with --from-pool; a bad pool changes nothing."""
    import json

    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, ["--db", db, *args], catch_exceptions=False)

    assert run("load", "qrels", "-C", "c", str(DATA / "qrels.txt")).exit_code == 0
    for name, team in teams().items():
        assert run("load", "run", "-C", "c", "--name", name, "--team", team, str(DATA / f"{name}.txt")).exit_code == 0
    assert run("pool", "build", "-C", "c", "--name", "p", "--depth", "10",
               *[x for r in POOLED for x in ("--runs", r)]).exit_code == 0
    assert run("pool", "export", "-C", "c", "p", str(tmp_path / "pool.txt")).exit_code == 0
    (tmp_path / "judged.txt").write_text(judged_export(tmp_path / "pool.txt", (DATA / "qrels.txt").read_text()))
    out = run("load", "qrels", "-C", "c", "--judgments", "assessed", str(tmp_path / "judged.txt")).output
    assert "judges pool 'p' (matched): 115 of its 115 documents, 0 judgments outside it" in out
    out = run("load", "qrels", "-C", "c", "--judgments", "nist", "--from-pool", "p", str(DATA / "qrels.txt")).output
    assert "judges pool 'p' (given)" in out

    def parameters(name):
        return json.loads(run("sql", "--format", "json", "select parameters from judgment_sets where "
                              f"judgment_set = '{name}'").output)[0]["parameters"]

    assessed, nist = json.loads(parameters("assessed")), json.loads(parameters("nist"))
    assert assessed["pool"] == nist["pool"] == "p" and assessed["linked"] == "matched" and nist["linked"] == "given"
    judged_in_pool = sum(1 for line in (tmp_path / "pool.txt").read_text().splitlines()
                         if tuple(line.split()[::2][:2]) in {tuple(q.split()[::2][:2]) for q in
                                                             (DATA / "qrels.txt").read_text().splitlines()})
    assert nist["judged_pool_documents"] == judged_in_pool
    assert nist["judgments_outside_pool"] == len((DATA / "qrels.txt").read_text().splitlines()) - judged_in_pool
    assert "assessed" in run("pool", "list", "-C", "c", "--format", "csv").output
    assert '"pool": "p"' in run("judgments", "list", "-C", "c", "--format", "csv").output.replace('""', '"')
    before = run("sql", "--format", "csv", "select judgment_set, parameters from judgment_sets order by 1").output
    bad = run("load", "qrels", "-C", "c", "--judgments", "other", "--from-pool", "nope", str(tmp_path / "judged.txt"))
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "has no pool 'nope'" in bad.output
    after = run("sql", "--format", "csv", "select judgment_set, parameters from judgment_sets order by 1").output
    assert after == before


def test_leave_out_matches_loo_summarize(campaign):
    """NIST's gloo-eval.pl (trec_eval -M1000 -q under qrels.without-GROUP) then loo-summarize.pl
    (tests/fixtures/pools/loo-summarize.txt): pooled mark, official and leave-out MAP and bpref
    as trec_eval prints them (4 decimals); loo-summarize.pl's Diff and %Diff come from those
    printed values and %Diff is a fraction, so they are compared as it computes them, and
    pyeval's full-precision percent_difference / 100 within the rounding."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    table = pools.leave_out(campaign, "c", "p", ["map", "bpref"]).table.set_index(["measure", "run_id"])
    lines = (DATA / "loo-summarize.txt").read_text().splitlines()
    assert lines[1].split() == ["Run", "Orig", "LOO", "Diff", "%Diff", "Orig", "LOO", "Diff", "%Diff"]
    assert len(lines) == 2 + len(RUNS)
    for line in lines[2:]:
        name, *numbers = line.split()
        run = name.rstrip("*")
        for measure, (orig, loo, diff, fraction) in zip(["AP", "Bpref"], (numbers[:4], numbers[4:])):
            row = table.loc[(measure, run)]
            assert bool(row["pooled"]) == name.endswith("*"), run
            assert f"{row['official']:.4f}" == orig and f"{row['leave_out']:.4f}" == loo, (measure, run)
            printed = float(f"{row['leave_out']:.4f}") - float(f"{row['official']:.4f}")
            assert f"{printed:.4f}" == f"{float(diff):.4f}"
            assert printed / float(orig) == pytest.approx(float(fraction), abs=5e-5)
            assert row["percent_difference"] / 100 == pytest.approx(float(fraction), abs=2e-3)


def test_leave_out_sets_are_gloo_evals_qrels(campaign):
    """The derived set of each team is gloo-eval.pl's qrels.without-TEAM (tests/fixtures/pools/
    gloo-qrels.without-*.txt, from annotate-qrels.pl's output); delta pooled no unique judged
    document, so its runs keep the official set, which is gloo-eval.pl's qrels.without-delta."""
    pools.build(campaign, "c", "p", depth=10, runs=POOLED)
    pools.leave_out(campaign, "c", "p", ["AP"])
    for team in ("alpha", "beta", "gamma", "delta"):
        expected = sorted(tuple(line.split()) for line in (DATA / f"gloo-qrels.without-{team}.txt").read_text()
                          .splitlines())
        name = "official" if team == "delta" else f"p.without-team.{team}"
        stored = campaign.execute("select topic_id, '0', doc_id, level::varchar from qrels_by_set where judgment_set = $s",
                                  {"s": name}).fetchall()
        assert sorted(stored) == expected, team


def test_list_marks_pooled_runs(tmp_path):
    """`pyeval list` shows which runs were pooled (issue 27: visible in runs)."""
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, ["--db", db, *args], catch_exceptions=False)

    assert run("load", "qrels", "-C", "c", str(DATA / "qrels.txt")).exit_code == 0
    for name in ("r0", "r5"):
        assert run("load", "run", "-C", "c", "--name", name, str(DATA / f"{name}.txt")).exit_code == 0
    assert run("pool", "build", "-C", "c", "--name", "p", "--depth", "10", "--runs", "r0").exit_code == 0
    rows = {line.split(",")[1]: line.split(",")[-1] for line in
            run("list", "--only", "runs", "--format", "csv").output.splitlines()[1:]}
    assert rows == {"r0": "True", "r5": "False"}


def test_unique_relevant_view_is_pool_uniques_and_annotate_qrels(tmp_path):
    """The view unique_relevant (per team: the judged and the relevant documents only its runs
    contributed) holds what annotate-qrels.pl's output counts (documents of one group; relevant:
    level > 0) and what `pyeval pool uniques` prints, for every judgment set of the campaign and
    by run too."""
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(main, ["--db", db, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    run("load", "qrels", "-C", "c", str(DATA / "qrels.txt"))
    # a second set that judges the same documents, none relevant
    lenient = tmp_path / "none-relevant.txt"
    lenient.write_text("".join(" ".join([*line.split()[:3], "0"]) + "\n"
                               for line in (DATA / "qrels.txt").read_text().splitlines()))
    run("load", "qrels", "-C", "c", "--judgments", "none", str(lenient))
    for name, team in teams().items():
        run("load", "run", "-C", "c", "--name", name, "--team", team, str(DATA / f"{name}.txt"))
    run("pool", "build", "-C", "c", "--name", "p", "--depth", "10", *[x for r in POOLED for x in ("--runs", r)])
    expected = {team: [0, 0] for team in ("alpha", "beta", "gamma")}  # delta's run r5 is not pooled
    for line in (DATA / "annotate-qrels.txt").read_text().splitlines():
        topic, _, doc, level, count, *groups = line.split()
        if int(count) == 1:
            expected[groups[0]][0] += 1
            expected[groups[0]][1] += int(level) > 0
    assert expected == {"alpha": [25, 10], "beta": [22, 14], "gamma": [11, 2]}

    con = pyeval.connect(db, read_only=True)
    view = con.execute("select judgment_set, grouped_by, group_name, unique_judged, unique_relevant "
                       "from unique_relevant where campaign_id = 'c' and pool_name = 'p'").df()
    con.close()
    official = view[(view["judgment_set"] == "official") & (view["grouped_by"] == "team")]
    assert {g: [j, r] for g, j, r in official[["group_name", "unique_judged", "unique_relevant"]].values} == expected
    none = view[(view["judgment_set"] == "none") & (view["grouped_by"] == "team")]
    assert {g: [j, r] for g, j, r in none[["group_name", "unique_judged", "unique_relevant"]].values} == {
        team: [judged, 0] for team, (judged, _) in expected.items()}
    for judgment_set in ("official", "none"):
        for grouping in ("team", "run"):
            printed = pd.read_csv(io.StringIO(run("pool", "uniques", "-C", "c", "--pool", "p", "--judgments",
                                                  judgment_set, "--by", grouping, "--format", "csv")))
            stored = view[(view["judgment_set"] == judgment_set) & (view["grouped_by"] == grouping)]
            stored = stored.rename(columns={"group_name": grouping}).sort_values(grouping)
            assert list(printed.columns) == [grouping, "unique_judged", "unique_relevant"]
            assert printed.values.tolist() == stored[list(printed.columns)].values.tolist(), (judgment_set, grouping)
    assert not view.duplicated(["judgment_set", "grouped_by", "group_name"]).any()  # the declared grain
    runs = view[(view["judgment_set"] == "official") & (view["grouped_by"] == "run")]
    assert sorted(runs["group_name"]) == POOLED
