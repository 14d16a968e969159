"""``pyeval ndeval -baseline FILE -riskAlpha A`` (TREC Web 2013-14 risk-sensitive mode) against the
output of trec-web/trec-web-2014's ndeval.c, built with gcc and run on the TREC 2012 Web
diversity qrels and the package's sample runs (tests/fixtures/ndeval/risk, README there):
byte for byte, per-topic rows and the amean line."""
from __future__ import annotations

import gzip

import pytest
from click.testing import CliRunner

from pyeval import sample
from pyeval.cli import main

from ..conftest import FIXTURES

RISK = FIXTURES / "ndeval" / "risk"


def ndeval(*arguments):
    return CliRunner().invoke(main, ["ndeval", *map(str, arguments)])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The qrels, the sample runs indri-ql, indri-rm and sim01, and two cut runs: sim01 without
    topic 151 and with an unjudged topic 999 (topic 153's lines), indri-ql without topic 152."""
    folder = tmp_path_factory.mktemp("ndeval-risk")
    (folder / "q.txt").write_bytes(gzip.decompress((FIXTURES / "ndeval" / "qrels-for-ndeval.txt.gz").read_bytes()))
    for name, run in (("ql", "indri-ql"), ("rm", "indri-rm"), ("sim01", "sim01")):
        (folder / f"{name}.txt").write_bytes(gzip.decompress(sample.path(f"runs/{run}.txt.gz").read_bytes()))
    sim = (folder / "sim01.txt").read_text().splitlines()
    cut = [line for line in sim if line.split()[0] != "151"]
    cut += [" ".join(["999", *line.split()[1:]]) for line in sim if line.split()[0] == "153"]
    (folder / "simcut.txt").write_text("\n".join(cut) + "\n")
    ql = (folder / "ql.txt").read_text().splitlines()
    (folder / "qlcut.txt").write_text("\n".join(line for line in ql if line.split()[0] != "152") + "\n")
    return folder


CASES = [
    (["-c", "-traditional", "-baseline", "ql.txt", "-riskAlpha", "0"], "rm.txt", "out.c.rm.ql.0.csv"),
    (["-c", "-traditional", "-baseline", "ql.txt", "-riskAlpha", "1"], "rm.txt", "out.c.rm.ql.1.csv"),
    (["-c", "-traditional", "-baseline", "ql.txt", "-riskAlpha", "5"], "rm.txt", "out.c.rm.ql.5.csv"),
    (["-c", "-baseline", "ql.txt"], "rm.txt", "out.c.rm.ql.default.csv"),
    (["-baseline", "ql.txt", "-riskAlpha", "5"], "sim01.txt", "out.sim01.ql.5.csv"),
    (["--baseline", "qlcut.txt", "--risk-alpha", "2.5"], "simcut.txt", "out.cut.csv"),
    (["-c", "--baseline", "qlcut.txt", "--risk-alpha", "2.5"], "simcut.txt", "out.cut-c.csv"),
    (["-M", "10", "-traditional", "-baseline", "simcut.txt", "-riskAlpha", "1.50"], "ql.txt", "out.M10.csv"),
]


@pytest.mark.parametrize("options, run, expected", CASES, ids=[c[2] for c in CASES])
def test_risk_sensitive_output_is_that_of_trec_web_2014_ndeval(files, options, run, expected):
    arguments = [files / o if o.endswith(".txt") else o for o in options]
    result = ndeval(*arguments, files / "q.txt", files / run)
    assert result.exit_code == 0, result.output
    assert result.output == (RISK / expected).read_text()


def test_negative_risk_alpha_is_a_usage_error(files):
    result = ndeval("-baseline", files / "ql.txt", "-riskAlpha", "-1", files / "q.txt", files / "rm.txt")
    assert result.exit_code == 1 and "-riskAlpha must be a non-negative number" in result.output
    result = ndeval("-baseline", files / "ql.txt", "-riskAlpha", "x", files / "q.txt", files / "rm.txt")
    assert result.exit_code == 1 and "-riskAlpha" in result.output
