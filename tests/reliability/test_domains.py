"""Measure parameters' domains are declared once, in the registry, and every violation is a
one-line error (docs/reliability.md, "Measure parameters"); a fuzz test of measure names with
random parameters: each one is refused with a message or computed to a value."""
from __future__ import annotations

import math
import os
import random

import pytest

import pyeval
from pyeval.errors import MeasureParamError, PyevalError
from pyeval.core.gains import parse_gains
from pyeval.measures import definitions, parse

from ..conftest import FIXTURES
from .helpers import QRELS, RUN, cli, one_line_error, warehouse

#: measure -> a word of its error (each once a traceback or a stored nonsense value)
OUT_OF_DOMAIN = {
    "RBP(p=2)": "must lie in (0, 1)",
    "RBP(p=1)": "must lie in (0, 1)",
    "RBP(p=0)": "must lie in (0, 1)",
    "nRBP(p=2)@10": "must lie in (0, 1)",
    "RBPResid(p=1.5)": "must lie in [0, 1]",
    "iRBU(u=2)@10": "must lie in [0, 1]",
    "IPrec@1.5": "must lie in [0, 1]",
    "IPrec@-0.1": "must lie in [0, 1]",
    "P@99999999999999999999": "must lie in [1, 2147483647]",
    "P@2147483648": "must lie in [1, 2147483647]",
    "P@9223372036854775808": "must lie in [1, 2147483647]",
    "P@0": "must lie in [1, 2147483647]",
    "AP(rel=99999999999999999999)": "BIGINT",
    "Utility(p1=1e999)": "finite",
    "Utility(p1=" + "9" * 400 + ")": "finite",
    "RprecMult(m=1e300)": "must lie in [0, 1e+06]",
    "U(snippet=99999999999)@10": "must lie in [0, 2147483647]",
    "U(F=1.5)@10": "must lie in [0, 1]",
    "alpha_nDCG(alpha=1.5)@10": "must lie in [0, 1]",
    "Dsharp_nDCG(gamma=2)@10": "must lie in [0, 1]",
    "NCU(gamma=1.5)": "must lie in [0, 1]",
}


@pytest.mark.parametrize("text, message", OUT_OF_DOMAIN.items())
def test_out_of_domain_parameters_are_refused(text, message):
    with pytest.raises(MeasureParamError, match=message.replace("(", r"\(").replace("[", r"\[")
                       .replace(")", r"\)").replace("]", r"\]").replace("+", r"\+")):
        parse(text)


def test_out_of_domain_parameters_are_one_line_errors_on_the_command_line(tmp_path):
    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    for text in ("RBP(p=2)", "P@9223372036854775808", "IPrec@1.5"):
        status, output = cli("--db", db, "evaluate", "-C", "c", "-m", text)
        assert status == 1 and text.split("(")[0].split("@")[0] in one_line_error(output)
    for spec in ("99999999999=1", "1=1e999", "1=nan", "1=1,2147483648=2"):
        status, output = cli("--db", db, "gains", "-C", "c", "g", spec)
        assert status == 1 and "gains" in one_line_error(output), output


def test_every_declared_bound_is_enforced_and_its_inside_accepted():
    """Walk every parameter of every measure: values just outside a bound are refused, the
    bound itself follows open/closed."""
    for definition in definitions():
        for param in definition.params:
            if param.type not in (int, float) or param.choices:
                continue
            for bound, is_open, step in ((param.minimum, param.open_minimum, -1),
                                         (param.maximum, param.open_maximum, +1)):
                if bound is None:
                    continue
                outside = bound + step * (1 if param.type is int else 1e-9 * max(1, abs(bound)))
                assert param.problem(param.type(outside)) is not None, (definition.name, param.name, outside)
                assert (param.problem(param.type(bound)) is None) != is_open, (definition.name, param.name)


def test_gain_levels_and_gains_stay_within_their_types():
    assert parse_gains("0=0,2147483647=1.5") == {0: 0.0, 2147483647: 1.5}
    for spec in ("2147483648=1", "-1=1", "1=inf", "1=1e999", {1: float("nan")}):
        with pytest.raises(MeasureParamError):
            parse_gains(spec)


# ---------------------------------------------------------------------------------- fuzz

SEED = int(os.environ.get("PYEVAL_FUZZ_SEED", "20240601"))
EVALUATED = int(os.environ.get("PYEVAL_FUZZ_EVALUATIONS", "120"))

NUMBERS = ["-1", "0", "1", "2", "3", "10", "1000", "0.5", "0.99", "1.0", "1.5", "-0.0", "1e300", "1e999",
           "2147483647", "2147483648", "9223372036854775807", "9223372036854775808", "9" * 40, "1e-320"]
WORDS = ["linear", "exp", "flat", "given", "ndeval", "none", "gdeval", "ntcir", "rb", "gu", "BR", "IE", "P",
         "all", "ret", "imp", "relevant", "listed", "error", "zero", "mean", "True", "False", "'0,0.5,1'",
         "'x y'", "'5000'", "nosuch"]


def _random_measure(rng: random.Random) -> str:
    definition = rng.choice(definitions())
    name = rng.choice([definition.name, *definition.aliases])
    chosen = rng.sample(definition.params, k=rng.randint(0, min(3, len(definition.params))))
    pool = lambda p: NUMBERS if p.type in (int, float) and rng.random() < 0.85 else WORDS  # noqa: E731
    keywords = [f"{p.name}={rng.choice(pool(p))}" for p in chosen if p.name != definition.at]
    if rng.random() < 0.1:
        keywords.append(f"nosuch={rng.choice(NUMBERS)}")
    text = name + (f"({', '.join(keywords)})" if keywords else "")
    if definition.at is not None and rng.random() < 0.8:
        text += "@" + rng.choice(NUMBERS)
    return text


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory):
    """An ad hoc campaign (with document lengths) and a diversity one (intents with types), in
    memory."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "adhoc", QRELS)
    pyeval.load_run(con, "adhoc", RUN, name="a")
    docs = con.execute("select distinct doc_id from qrels").fetchall()
    lengths = tmp_path_factory.mktemp("lengths") / "doclengths.txt"
    lengths.write_text("".join(f"{doc} {1000 + i}\n" for i, (doc,) in enumerate(docs)))
    pyeval.load_doclengths(con, "adhoc", lengths)
    ntcir = FIXTURES / "ntcireval"
    pyeval.load_qrels(con, "div", ntcir / "Dtest.Dqrels")
    pyeval.load_intents(con, "div", ntcir / "Dtest.DINprob")
    pyeval.load_run(con, "div", ntcir / "TRECRUN", name="d")
    yield con
    con.close()


def test_fuzz_measure_names_parse_to_a_measure_or_a_one_line_error():
    rng = random.Random(SEED)
    for _ in range(3000):
        text = _random_measure(rng)
        try:
            measure = parse(text)
        except PyevalError as exc:
            assert "\n" not in str(exc), text
            continue
        assert parse(str(measure)) == measure, text


@pytest.mark.slow  # every measure with random parameters: the suite's slowest check (~30 s CPU)
def test_fuzz_measures_with_random_parameters_evaluate_to_values_or_one_line_errors(campaigns):
    rng = random.Random(SEED + 1)
    evaluated = computed = 0
    while evaluated < EVALUATED:
        text = _random_measure(rng)
        try:
            measure = parse(text)
        except PyevalError:
            continue
        evaluated += 1
        campaign = "adhoc" if measure.definition.staging == "adhoc" else "div"
        try:
            result = pyeval.evaluate(campaigns, campaign, [text], store=False)
        except PyevalError as exc:
            assert "\n" not in str(exc).strip(), (text, str(exc))
            continue
        computed += 1
        values = result.per_topic["value"].dropna() if len(result.per_topic) else []
        assert all(not math.isinf(v) for v in values), (text, list(values)[:5])
    assert computed > EVALUATED // 3  # the fuzz reaches the metric SQL, not only the parser


def test_fuzz_on_the_command_line_exits_0_or_1_with_one_line(tmp_path):
    db = warehouse(tmp_path / "w.duckdb", evaluate=False)
    rng = random.Random(SEED + 2)
    for _ in range(12):
        text = _random_measure(rng)
        status, output = cli("--db", db, "evaluate", "-C", "c", "--no-store", "-m", text)
        assert status in (0, 1) and "Traceback" not in output, (text, output)
        if status == 1:
            one_line_error(output)


#: Measures ir_measures computes (through pytrec_eval, trec_eval's C code) with the same name,
#: and their random parameters: the fuzz below checks pyeval's value against it.
ORACLE_TEMPLATES = (
    "P(rel={rel})@{k}", "R(rel={rel})@{k}", "nDCG@{k}", "AP(rel={rel})", "AP(rel={rel})@{k}",
    "RR(rel={rel})", "Success(rel={rel})@{k}", "Bpref(rel={rel})", "Rprec(rel={rel})", "NumRet(rel={rel})",
    "IPrec(rel={rel})@{recall}", "infAP(rel={rel})", "SetP(rel={rel})", "SetR(rel={rel})",
)


def test_fuzz_with_random_parameters_equals_the_oracle(campaigns):
    """Random parameters of measures ir_measures has: pyeval's per-topic values equal
    ir_measures' (pytrec_eval provider), topic by topic, or the parameter is refused in one line."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = list(ir_measures.read_trec_run(str(RUN)))
    rng = random.Random(SEED + 3)
    texts = []
    for _ in range(40):
        template = rng.choice(ORACLE_TEMPLATES)
        texts.append(template.format(rel=rng.choice([1, 2, 3]), k=rng.choice([1, 2, 5, 10, 17, 100, 1000, 2000]),
                                     recall=rng.choice([0.0, 0.1, 0.35, 0.5, 1.0])))
    compared = 0
    for text in dict.fromkeys(texts):
        try:
            result = pyeval.evaluate(campaigns, "adhoc", [text], store=False, topics="intersection")
        except PyevalError as exc:
            assert "\n" not in str(exc).strip(), (text, str(exc))
            continue
        try:
            values = list(ir_measures.iter_calc([ir_measures.parse_measure(text)], qrels, run))
        except ValueError as exc:  # a parameter value its providers do not take
            assert "Unsupported measures" in str(exc), (text, str(exc))
            continue
        oracle = {m.query_id: m.value for m in values}
        ours = dict(zip(result.per_topic["topic_id"], result.per_topic["value"]))
        shared = set(ours) & set(oracle)
        assert shared, text
        for topic in shared:
            assert ours[topic] == pytest.approx(oracle[topic], abs=1e-9), (text, topic)
        compared += 1
    assert compared >= 20
