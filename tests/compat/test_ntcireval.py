"""``pyeval ntcireval`` against NTCIREVAL's own output (exact text), the README sample values
(docs/adhoc-measures.md section 6.1), hand-worked cases of compute's C code, and pyNTCIREVAL 0.0.3 (a
Python port of compute, test oracle) on generated campaigns.
"""
from __future__ import annotations

import math
import random

import pytest
from click.testing import CliRunner

from pyeval.cli import main

from ..conftest import FIXTURES

NTCIR = FIXTURES / "ntcireval"


def ntcireval(*arguments):
    return CliRunner().invoke(main, ["ntcireval", *map(str, arguments)])


def values(output: str) -> dict[tuple[str, str], str]:
    """(topic, printed name) -> printed value; header fields as ('#', name)."""
    found = {}
    for line in output.splitlines():
        topic, rest = line.split(" ", 1)
        if rest.startswith("# "):
            for field in rest[2:].split():
                name, value = field.split("=")
                found[topic, name] = value
        else:
            name, value = rest.split("=")
            found[topic, name] = value.strip()
    return found


# --- NTCIREVAL 190111's own output --------------------------------------------------------


def test_trecrun_output_is_byte_identical():
    """TRECRUN.test.nev: NTCIR-eval test.qrels.tid rel test -cutoffs 10,1000 -g 1:2."""
    result = ntcireval("-r", NTCIR / "test.qrels", "-g", "1:2", "--cutoffs", "10,1000", NTCIR / "TRECRUN")
    assert result.exit_code == 0, result.output
    assert result.stdout == (NTCIR / "TRECRUN.test.nev").read_text()
    assert "no mean lines, as NTCIREVAL's compute prints none" in result.stderr  # says why not


def test_padding_and_cutoff_names():
    result = ntcireval("-r", NTCIR / "test.qrels", "-g", "1:2", "--cutoffs", "10000,5", NTCIR / "TRECRUN")
    lines = result.stdout.splitlines()
    assert "0001 RR=                  0.3333" in lines
    # %04ld: five digits widen the field, as compute's literal padding does
    assert any(line.startswith("0001 AP@10000=             ") for line in lines)
    assert any(line.startswith("0001 MSnDCG@0005=         ") for line in lines)
    # cutoffs print in the order given
    names = [line.split()[1].split("=")[0] for line in lines if line.startswith("0001 AP@")]
    assert names == ["AP@10000", "AP@0005"]


# --- the README sample (sample.rel / sample.res) --------------------------------------------


@pytest.fixture
def sample(tmp_path):
    """sample.rel and sample.res as topic 1 of an NTCIR qrels file and a TREC run (file order;
    the scores increase, so the trec ordering would reverse the list)."""
    rel = (NTCIR / "sample.rel").read_text().split()
    qrels = tmp_path / "sample.qrels"
    qrels.write_text("".join(f"1 {doc} {label}\n" for doc, label in zip(rel[::2], rel[1::2])))
    docs = (NTCIR / "sample.res").read_text().split()
    run = tmp_path / "sample.run"
    run.write_text("".join(f"1 Q0 {doc} {rank} {rank} sample\n" for rank, doc in enumerate(docs, start=1)))
    return qrels, run


README_SAMPLE = {
    ("-g", "1:2:3"): {
        "syslen": "4", "jrel": "10", "jnonrel": "1", "r1": "2", "rp": "2",
        "RR": "0.5000", "O-measure": "0.5000", "P-measure": "0.5000", "P-plus": "0.5000", "AP": "0.1000",
        "Q-measure": "0.0967", "NCUgu,P": "0.1316", "NCUgu,BR": "0.1281", "NCUrb,P": "0.1215",
        "NCUrb,BR": "0.1175", "RBP": "0.0761", "ERR": "0.4062", "EBR": "0.4333", "AP@1000": "0.1000",
        "Q@1000": "0.0967", "nDCG@1000": "0.3380", "MSnDCG@1000": "0.2760", "P@1000": "0.0020",
        "RBP@1000": "0.0761", "ERR@1000": "0.4062", "nERR@1000": "0.4710", "EBR@1000": "0.4333",
        "Hit@1000": "1.0000",
    },
    ("-g", "1:4:9"): {
        "Q-measure": "0.0929", "ERR": "0.4600", "nDCG@1000": "0.3636", "MSnDCG@1000": "0.2947",
        "RBP": "0.0666", "NCUgu,P": "0.1512",
    },
    ("-g", "1:2:3", "--cutoffs", "2"): {
        "AP@0002": "0.2500", "Q@0002": "0.2500", "nDCG@0002": "0.5000", "MSnDCG@0002": "0.3869",
        "P@0002": "0.5000", "nERR@0002": "0.4444",
    },
    ("-g", "1:2:3", "-j"): {
        "syslen": "3", "AP": "0.1167", "Q-measure": "0.1083", "ERR": "0.4167", "nDCG@1000": "0.3601",
        "MSnDCG@1000": "0.2899", "nERR@1000": "0.4830",
    },
}


@pytest.mark.parametrize("arguments", list(README_SAMPLE), ids=[" ".join(a) for a in README_SAMPLE])
def test_readme_sample_values(sample, arguments):
    qrels, run = sample
    result = ntcireval("-r", qrels, *arguments, run)
    assert result.exit_code == 0, result.output
    got = {name: value for (_, name), value in values(result.stdout).items()}
    assert {name: got.get(name) for name in README_SAMPLE[arguments]} == README_SAMPLE[arguments]


def test_condensed_list_prints_the_bpref_family(sample):
    """-j on the sample: condensed list L0, L3, L2; R = 10, N = 1, gains 1:2:3 (hand-worked from
    compute's formulas, docs/adhoc-measures.md section 3.4)."""
    qrels, run = sample
    result = ntcireval("-r", qrels, "-g", "1:2:3", "-j", run)
    lines = result.stdout.splitlines()
    assert [line.split("=")[0] for line in lines[-7:]] == [
        "1 bpref", "1 bpref_R", "1 bpref_N", "1 bpref_relative", "1 rpref_N", "1 rpref_relative",
        "1 rpref_relative2",
    ]
    got = values(result.stdout)
    # n(r) = 1 judged non-relevant above both relevant documents (ranks 2 and 3)
    assert got["1", "bpref"] == "%.4f" % 0.0  # 1 - min(R, 1)/min(R, N) = 0
    assert got["1", "bpref_R"] == "%.4f" % (2 * (1 - 1 / 10) / 10)
    assert got["1", "bpref_relative"] == "%.4f" % ((0 + (1 - 1 / 2)) / 10)
    ideal = 3 * 3 + 3 * 2 + 4 * 1
    ratio = 1 - 1 / (10 + 1 - ideal / 3)  # one penalty (the L0 document) for each
    assert got["1", "rpref_N"] == "%.4f" % ((3 * ratio + 2 * ratio) / ideal)
    assert got["1", "rpref_relative2"] == "%.4f" % ((3 * (1 - 1 / 2) + 2 * (1 - 1 / 3)) / ideal)


# --- the 2020 measure set, -gap and -rbup: hand-worked from the formulas ----------------------


def test_format_2020_names_order_and_values(sample):
    qrels, run = sample
    result = ntcireval("-r", qrels, "-g", "1:2:3", "--format", "2020", "--gap", "--cutoffs", "2", run)
    assert result.exit_code == 0, result.output
    names = [line.split(" ", 1)[1].split("=")[0] for line in result.stdout.splitlines()[2:]]
    assert names == [
        "RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUrb,P", "NCUrb,BR", "NCUrb,IE",
        "GAP", "RBP", "ERR", "EBR", "iRBU",
        "AP@0002", "Q@0002", "NCUrb,P@0002", "NCUrb,BR@0002", "NCUrb,IE@0002", "GAP@0002", "nDCG@0002",
        "MSnDCG@0002", "Prec@0002", "RBP@0002", "nRBP@0002", "ERR@0002", "nERR@0002", "EBR@0002",
        "nEBR@0002", "iRBU@0002", "niRBU@0002", "Hit@0002",
    ]
    got = {name: value for (_, name), value in values(result.stdout).items()}
    # run: L0, L3, unjudged, L2; R = 10; gmax = 3, pi = g/4; u = 0.99, gamma = 0.95
    gamma_sum = sum(0.95**k for k in range(10))
    assert got["NCUrb,IE"] == "%.4f" % ((0.99**2 + 0.99**4 * 0.95) / gamma_sum)
    assert got["NCUrb,IE@0002"] == "%.4f" % (0.99**2 / 2)
    assert got["NCUrb,P@0002"] == "%.4f" % (0.5 / 2)
    # GAP on levels: rank 2 adds 3*4/2, rank 4 adds (2*3 + 2*3)/4; ideal 3*12 + 3*6 + 4*2
    assert got["GAP"] == "%.4f" % ((6 + 3) / 62)
    assert got["GAP@0002"] == "%.4f" % (6 / 24)
    assert got["iRBU"] == "%.4f" % (0.99**2 * 0.75 + 0.99**4 * 0.25 * 0.5)
    ideal_irbu = 0.99 * 0.75 + 0.99**2 * 0.25 * 0.75
    assert got["niRBU@0002"] == "%.4f" % (0.99**2 * 0.75 / ideal_irbu)
    assert got["nRBP@0002"] == "%.4f" % (3 * 0.95 / (3 + 3 * 0.95))
    assert got["nEBR@0002"] == "%.4f" % (0.5 * 0.75 / (0.75 + 0.25 * 0.75))
    assert got["Prec@0002"] == "0.5000"


def test_190111_gap_and_rbup_lines(sample):
    qrels, run = sample
    result = ntcireval("-r", qrels, "-g", "1:2:3", "--gap", "--rbup", "0.9", "--cutoffs", "2", run)
    names = [line.split(" ", 1)[1].split("=")[0] for line in result.stdout.splitlines()[2:]]
    assert names == [
        "RR", "O-measure", "P-measure", "P-plus", "AP", "Q-measure", "NCUgu,P", "NCUgu,BR", "NCUrb,P",
        "NCUrb,BR", "GAP", "RBP", "ERR", "EBR",
        "AP@0002", "Q@0002", "GAP@0002", "nDCG@0002", "MSnDCG@0002", "P@0002", "RBP@0002", "ERR@0002",
        "nERR@0002", "EBR@0002", "iRBU@0002", "Hit@0002",
    ]
    assert values(result.stdout)["1", "iRBU@0002"] == "%.4f" % (0.9**2 * 0.75)


def test_zero_gain_level_follows_compute(tmp_path):
    """-g 0:1: an L1 document counts in C(r) and r1 but adds nothing to the sums over ranks with
    gain > 0 (compute's AP is 0.5 here; trec_eval's would be 1)."""
    qrels = tmp_path / "z.qrels"
    qrels.write_text("1 a L1\n1 b L2\n1 c L0\n")
    run = tmp_path / "z.run"
    run.write_text("1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n")
    got = {name: v for (_, name), v in values(ntcireval("-r", qrels, "-g", "0:1", "--cutoffs", "1,5", run).stdout).items()}
    # BR(1) = (0 + 1)/(1 + 1), BR(2) = (1 + 2)/(1 + 2); rp = 2
    expected = {
        "r1": "1", "rp": "2", "RR": "1.0000", "O-measure": "0.5000", "P-measure": "1.0000", "P-plus": "0.5000",
        "AP": "0.5000", "Q-measure": "0.5000", "NCUgu,P": "1.0000", "NCUrb,P": "%.4f" % (0.95 / 1.95),
        "RBP": "0.0475", "ERR": "0.2500", "EBR": "0.5000", "AP@0001": "0.0000", "nDCG@0001": "0.0000",
        "P@0001": "1.0000", "AP@0005": "0.5000", "nDCG@0005": "1.0000",
        "MSnDCG@0005": "%.4f" % (math.log(2) / math.log(3)), "nERR@0005": "0.5000",
    }
    assert {name: got.get(name) for name in expected} == expected


# --- topics ---------------------------------------------------------------------------------


def test_topics_empty_lists_and_topics_without_relevant_documents(tmp_path):
    qrels = tmp_path / "t.qrels"
    qrels.write_text("10 a L1\n10 b L0\n2 c L0\n3 d L2\n3 e L1\n")
    run = tmp_path / "t.run"
    run.write_text("10 Q0 b 1 5 r\n10 Q0 zz 2 4 r\n9 Q0 x 1 1 r\n")
    result = ntcireval("-r", qrels, "-g", "1:2", "--cutoffs", "1", run)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # byte order (10 before 3); topic 2 has no relevant document: nothing; run topic 9 ignored
    assert [line.split()[0] for line in lines] == ["10"] * 25 + ["3"] * 25  # 2 header lines, 13 measures, 10 per cutoff
    assert lines[:2] == ["10 # syslen=2 jrel=1 jnonrel=1", "10 # r1=0 rp=0"]
    assert lines[25:27] == ["3 # syslen=0 jrel=2 jnonrel=0", "3 # r1=0 rp=0"]
    assert all(line.split()[-1].endswith("0.0000") for line in lines if "#" not in line)
    assert "topic 2: no relevant document" in result.stderr
    condensed = ntcireval("-r", qrels, "-g", "1:2", "-j", "--cutoffs", "1", run)
    assert {line.split()[0] for line in condensed.stdout.splitlines()} == {"10"}  # 3: no judged non-relevant
    assert "topic 3: no judged non-relevant document" in condensed.stderr


def test_truncate_keeps_the_first_lines_in_file_order(tmp_path):
    qrels = tmp_path / "t.qrels"
    qrels.write_text("1 a L1\n1 b L2\n1 c L0\n")
    run = tmp_path / "t.run"
    run.write_text("1 Q0 c 1 1 r\n1 Q0 b 2 9 r\n1 Q0 a 3 5 r\n")
    got = values(ntcireval("-r", qrels, "-g", "1:2", "--truncate", "2", run).stdout)
    assert (got["1", "syslen"], got["1", "r1"], got["1", "rp"]) == ("2", "2", "2")


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "qrels,run,extra,status,message",
    [
        ("1 a L1\n1 b L3\n", "1 Q0 a 1 5 r\n", ["-g", "1:2"], 2, "q:2: level L3 is above the 2 levels of -g"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n1 Q0 a 2 4 r\n", ["-g", "1:2"], 2,
         "r:2: document 'a' retrieved twice for topic '1' (first on line 1)"),
        ("1 a L1\n", "1 Q0 a 1 x r\n", ["-g", "1:2"], 2, "r:1: score 'x' is not a finite number"),
        ("1 a Lx\n", "1 Q0 a 1 5 r\n", ["-g", "1:2"], 2, "q:1:"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "2:1"], 1, "-g: a higher level needs a gain at least as high"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "1:x"], 1, "-g: gains must be numbers"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "1", "--cutoffs", "0"], 1, "--cutoffs: a cutoff must be at least 1"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "1", "--cutoffs", "1,2,3,4,5,6,7,8,9,10"], 1, "at most 9 cutoffs"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "1", "--gamma", "1.5"], 1, "--gamma must lie in [0, 1]"),
        ("1 a L1\n", "1 Q0 a 1 5 r\n", ["-g", "1", "--logb", "2.5"], 1, "--logb"),
    ],
)
def test_errors_name_the_file_and_line(tmp_path, qrels, run, extra, status, message):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    result = ntcireval("-r", tmp_path / "q", *extra, tmp_path / "r")
    assert result.exit_code == status
    assert result.stdout == ""
    assert result.stderr.startswith("pyeval ntcireval: ") and len(result.stderr.splitlines()) == 1
    assert message in result.stderr.replace(str(tmp_path) + "/", "")


def test_missing_file_and_missing_gains(tmp_path):
    result = ntcireval("-r", tmp_path / "nosuch", "-g", "1", tmp_path / "nosuch.run")
    assert result.exit_code == 2 and result.stderr == f"pyeval ntcireval: {tmp_path / 'nosuch'}: no such file\n"
    usage = ntcireval("-r", tmp_path / "nosuch", tmp_path / "nosuch.run")
    assert usage.exit_code == 2 and "Missing option '-g'" in usage.output


# --- pyNTCIREVAL 0.0.3 on generated campaigns -----------------------------------------------


def _generated(seed: int, max_level: int):
    """Random graded qrels and one run (random scores, so only file order gives the lists);
    every list holds a relevant document and is not empty (pyNTCIREVAL fails otherwise)."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for number in range(1, 16):
        topic = f"{number:03d}"
        pool = [f"d{n:03d}" for n in range(rng.randint(5, 60))]
        judged = {doc: rng.choice([0, 0, 1, 1, 2, max_level]) for doc in pool if rng.random() < 0.75}
        relevant = [doc for doc, level in judged.items() if level > 0] or [pool[0]]
        judged.setdefault(relevant[0], 1)
        judged[relevant[0]] = judged[relevant[0]] or 1
        judged.setdefault(pool[-1], 0)
        docs = rng.sample(pool, rng.randint(1, len(pool)))
        if not any(judged.get(doc, 0) > 0 for doc in docs):
            docs.append(relevant[0])
        qrels[topic], run[topic] = judged, docs
    return qrels, run


def _oracle(judged, docs, gains, options, condensed):
    from pyNTCIREVAL import Labeler
    from pyNTCIREVAL.metrics import (
        AP,
        ERR,
        RBP,
        RR,
        Hit,
        MSnDCG,
        NCUguBR,
        NCUguP,
        NCUrbBR,
        NCUrbP,
        OMeasure,
        PMeasure,
        PPlusMeasure,
        Precision,
        QMeasure,
        nDCG,
        nERR,
    )

    labelled = Labeler(judged).label(docs)
    if condensed:  # compute -j after TRECsplitruns: condense the (already cut) list
        labelled = [(doc, level) for doc, level in labelled if level is not None]
    xrel = Labeler(judged).compute_per_level_doc_num(len(gains) + 1)
    beta, gamma, logb, p = options["beta"], options["gamma"], options["logb"], options["rbp"]
    metrics = {
        "RR": RR(), "O-measure": OMeasure(xrel, gains, beta), "P-measure": PMeasure(xrel, gains, beta),
        "P-plus": PPlusMeasure(xrel, gains, beta), "AP": AP(xrel, gains), "Q-measure": QMeasure(xrel, gains, beta),
        "NCUgu,P": NCUguP(xrel, gains, gains), "NCUgu,BR": NCUguBR(xrel, gains, gains, beta),
        "NCUrb,P": NCUrbP(xrel, gains, gamma), "NCUrb,BR": NCUrbBR(xrel, gains, gamma, beta),
        "RBP": RBP(xrel, gains, p), "ERR": ERR(xrel, gains),
    }
    for k in options["cutoffs"]:
        metrics.update({
            f"AP@{k:04d}": AP(xrel, gains, k), f"Q@{k:04d}": QMeasure(xrel, gains, beta, k),
            f"nDCG@{k:04d}": nDCG(xrel, gains, logb, k), f"MSnDCG@{k:04d}": MSnDCG(xrel, gains, k),
            f"P@{k:04d}": Precision(k), f"nERR@{k:04d}": nERR(xrel, gains, k), f"Hit@{k:04d}": Hit(k),
        })
    header = {
        "syslen": len(labelled), "jrel": sum(xrel[1:]), "jnonrel": xrel[0],
        "r1": RR.find_first_rel_rank(labelled) or 0, "rp": RR.find_first_max_rank(labelled) or 0,
    }
    return header, {name: metric.compute(labelled) for name, metric in metrics.items()}


@pytest.mark.parametrize(
    "seed,gains,options,condensed",
    [
        (1, [1, 2, 3], {"beta": 1.0, "gamma": 0.95, "logb": 2, "rbp": 0.95, "cutoffs": [10, 1000]}, False),
        (2, [1, 3, 7], {"beta": 0.5, "gamma": 0.9, "logb": 3, "rbp": 0.8, "cutoffs": [1, 5, 20]}, False),
        (3, [2, 5, 10, 10], {"beta": 2.0, "gamma": 0.95, "logb": 2, "rbp": 0.95, "cutoffs": [3, 30]}, False),
        (4, [1, 2, 3], {"beta": 1.0, "gamma": 0.95, "logb": 2, "rbp": 0.95, "cutoffs": [5, 100]}, True),
    ],
)
def test_pyntcireval_crosscheck(tmp_path, seed, gains, options, condensed):
    pytest.importorskip("pyNTCIREVAL")
    qrels, run = _generated(seed, max_level=len(gains))
    qrels_file = tmp_path / "g.qrels"
    qrels_file.write_text("".join(f"{t} {d} L{level}\n" for t, docs in qrels.items() for d, level in docs.items()))
    rng = random.Random(seed)
    run_file = tmp_path / "g.run"
    run_file.write_text("".join(
        f"{t} Q0 {d} {rank} {rng.random():.6f} g\n" for t, docs in run.items() for rank, d in enumerate(docs, 1)
    ))
    arguments = ["-r", qrels_file, "-g", ":".join(map(str, gains)), "--beta", options["beta"],
                 "--gamma", options["gamma"], "--logb", options["logb"], "--rbp", options["rbp"],
                 "--cutoffs", ",".join(map(str, options["cutoffs"]))]
    result = ntcireval(*arguments, *(["-j"] if condensed else []), run_file)
    assert result.exit_code == 0, result.output
    got = values(result.stdout)
    compared = 0
    for topic in qrels:
        if condensed and not any(level == 0 for level in qrels[topic].values()):
            assert (topic, "RR") not in got
            continue
        header, expected = _oracle(qrels[topic], run[topic], gains, options, condensed)
        assert {name: got[topic, name] for name in header} == {name: str(v) for name, v in header.items()}
        for name, value in expected.items():
            assert abs(float(got[topic, name]) - value) <= 5.0001e-5, (topic, name, got[topic, name], value)
            compared += 1
    assert compared >= 10 * 12


def test_logb_zero_divides_rank_two_by_ln_two(sample):
    """compute's -logb 0: natural log, disc(1) = 1 and disc(r) = ln r from rank 2 (pyNTCIREVAL
    leaves rank 2 undiscounted, docs/adhoc-measures.md section 3.7)."""
    qrels, run = sample
    got = {name: v for (_, name), v in values(ntcireval("-r", qrels, "-g", "1:2:3", "--logb", "0",
                                                        "--cutoffs", "2", run).stdout).items()}
    assert got["nDCG@0002"] == "%.4f" % ((3 / math.log(2)) / (3 + 3 / math.log(2)))
