"""Measure names: parse(str(m)) == m, aliases, errors, and the documented catalogue."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from pyeval.errors import MeasureNameError, MeasureNameWarning, MeasureParamError, UnknownMeasureError
from pyeval.measures import definitions, make, parse
from pyeval.measures.catalogue import catalogue

DOCS = Path(__file__).resolve().parents[2] / "docs" / "measures.md"


def _example(definition):
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in definition.params if p.required}
    return make(definition, **params)


@pytest.mark.parametrize("definition", definitions(), ids=lambda d: d.name)
def test_round_trip(definition):
    measure = _example(definition)
    assert parse(str(measure)) == measure
    assert definition.reference


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("AP", "AP"), ("MAP@100", "AP@100"), ("nDCG@10", "nDCG@10"), ("NDCG@10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"), ("P(rel=1)@5", "P@5"), ("nDCG(gain=exp)@10", "nDCG(gain=exp)@10"),
        ("nDCG(gain='exp')@10", "nDCG(gain=exp)@10"), ("RBP(p=0.8)", "RBP"), ("RBP(p=0.9)", "RBP(p=0.9)"),
        ("IPrec@0.5", "IPrec@0.5"), ("MRR", "RR"), ("Judged@10", "Judged@10"), ("NumRelRet", "NumRet(rel=1)"), ("NumRelRet(rel=2)", "NumRet(rel=2)"),
        ("  Success@10 ", "Success@10"),
        ("IPrecAvg(points='0.9, 0.625')", "IPrecAvg(points='0.625,0.9')"),
    ],
)
def test_canonical_spelling(text, canonical):
    assert str(parse(text)) == canonical


@pytest.mark.parametrize(
    "text,error,message",
    [
        ("nDGC@10", UnknownMeasureError, "did you mean nDCG"),
        ("P", MeasureParamError, "P needs cutoff"),
        ("P(x=1)@5", MeasureParamError, "has no parameter 'x'"),
        ("P(rel='a')@5", MeasureParamError, "must be int"),
        ("P@0", MeasureParamError, r"must lie in \[1, "),
        ("Rprec@5", MeasureNameError, "takes no @ parameter"),
        ("P(1)@5", MeasureNameError, "must be named"),
        ("__import__('os')", MeasureNameError, "cannot read a parameter value|must be named|cannot parse"),
        ("RBP(gain_norm=other)", MeasureParamError, "must be one of"),
    ],
)
def test_errors(text, error, message):
    with pytest.raises(error, match=message):
        parse(text)


def test_docs_hold_the_generated_catalogue():
    assert catalogue() in DOCS.read_text(), "run: python -m pyeval.measures.catalogue, paste into docs/measures.md"


SHARED_WITH_IR_MEASURES = [
    "AP", "AP@100", "AP(rel=2)", "nDCG", "nDCG@10", "P@10", "P(rel=2)@5", "R@100", "RR", "RR@10", "Rprec",
    "Bpref", "infAP", "Success@10", "NumQ", "NumRel", "NumRet", "NumRet(rel=1)", "NumRelRet", "Judged@10",
    "IPrec@0.5", "RBP", "RBP(p=0.9)", "RBP(rel=2)", "SetP", "SetR", "SetF", "SetAP", "MAP", "MRR", "NDCG@10",
]


@pytest.mark.parametrize("text", SHARED_WITH_IR_MEASURES)
def test_same_spelling_as_ir_measures(text):
    ir_measures = pytest.importorskip("ir_measures")
    assert str(parse(text)) == str(ir_measures.parse_measure(text))


@pytest.mark.parametrize(
    "text,canonical",
    [
        # the seed papers' and NTCIREVAL's names
        ("D#-nDCG@10", "Dsharp_nDCG@10"), ("DIN#-Q@10", "DINsharp_Q@10"), ("D-nDCG@10", "D_nDCG@10"),
        ("DIN-nDCG@10", "DIN_nDCG@10"), ("P+Q@10", "PplusQ@10"), ("P+Q#@10", "PplusQsharp@10"),
        ("nDCG-IA@10", "IA_nDCG@10"), ("Q-IA@10", "IA_Q@10"), ("IA-nDCG@10", "IA_nDCG@10"),
        ("I-rec@10", "IRec@10"), ("Ef-P@10", "EfP@10"), ("D-U@10", "D_U@10"), ("U-IA@10", "U_IA@10"),
        ("AP-IA", "IA_AP"), ("Q-measure", "Q"), ("O-measure", "OMeasure"), ("P-plus", "PPlus"),
        ("NCUgu,P", "NCU(stop=gu, util=P)"), ("NCUrb,BR", "NCU"), ("bpref_N", "BprefN"),
        ("Prec@0010", "P@10"), ("Hit@0010", "Success@10"), ("I-rec@0010", "IRec@10"),
        ("MSnDCG@0010", "nDCG@10"), ("D#-nDCG@0010", "Dsharp_nDCG@10"),
        # NTCIREVAL's zero-padded cutoff: its own measure where the name means another one
        ("nDCG@0010", "JKnDCG@10"), ("AP@0010", "APntcir@10"), ("ERR@0010", "ERR(stop=ntcir)@10"),
        ("nERR@0010", "nERR(stop=ntcir)@10"), ("RBP@0010", "RBP(gain_norm=gmax, p=0.95)@10"),
        ("GAP@0010", "nGAP@10"), ("ERR-IA@0010", "IA_ERR@10"),
        # ndeval's columns
        ("alpha-nDCG@20", "alpha_nDCG@20"), ("nERR-IA@20", "nERR_IA@20"), ("P-IA@20", "P_IA@20"),
        ("MAP-IA", "AP_IA"), ("strec@20", "StRecall@20"),
        # ir_measures' parameters and names
        ("SetP(relative=True)", "SetRelP"), ("SetRelP", "SetRelP"), ("SetRelP(relative=False)", "SetP"),
        ("nDCG(dcg='exp-log2')@10", "nDCG(gain=exp)@10"), ("nDCG(dcg='log2')@10", "nDCG@10"),
        ("nDCG(gains={0: 1, 1: 4})@10", "nDCG(gain='0=1,1=4')@10"),
        ("nDCG(gains={1: 2.5, 0: 0})@10", "nDCG(gain='0=0,1=2.5')@10"),
        ("nDCG(gain='1=4, 0=1')@10", "nDCG(gain='0=1,1=4')@10"),
        ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"), ("Judged", "Judged"),
        ("α_DCG@10", "alpha_DCG@10"), ("Compat(p=0.8)", "Compat(p=0.8)"), ("Accuracy@5", "Accuracy@5"),
        # ranx's
        ("hits@10", "Hits@10"), ("hit_rate@10", "Success@10"), ("ndcg_burges@10", "nDCG(gain=exp)@10"),
        ("r-precision", "Rprec"),
        # case folded where one measure is meant
        ("ndcg@10", "nDCG@10"), ("p@10", "P@10"), ("map", "AP"), ("Map@100", "AP@100"), ("mrr", "RR"),
        ("I-REC@10", "IRec@10"), ("d#-ndcg@10", "Dsharp_nDCG@10"),
    ],
)
def test_other_tools_spellings(text, canonical):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MeasureNameWarning)
        assert str(parse(text)) == canonical


def test_err_ia_is_ndevals_and_the_warning_names_the_other():
    with pytest.warns(MeasureNameWarning, match="ask for IA_ERR"):
        assert str(parse("ERR-IA@20")) == "ERR_IA@20"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(parse("ERR_IA@20")) == "ERR_IA@20"  # ir_measures' own name: no warning
        assert str(parse("IA_ERR@20")) == "IA_ERR@20"


@pytest.mark.parametrize(
    "text,message",
    [
        ("P10", "did you mean P@10"), ("ndcg10", "did you mean nDCG@10"),
        ("nrbp", "did you mean NRBP, nRBP"),  # two measures differ only by case: never folded
        ("nDGC@10", "did you mean nDCG"), ("Dsharp_nDGC@10", "did you mean Dsharp_nDCG"),
    ],
)
def test_unknown_names_get_suggestions(text, message):
    with pytest.raises(UnknownMeasureError, match=message):
        parse(text)


@pytest.mark.parametrize(
    "text,error",
    [("nDCG(dcg='exp')@10", "dcg must be one of log2, exp-log2"),
     ("nDCG(dcg='exp-log2', gain=linear)@10", "contradict"),
     ("nDCG(gains={-1: 2})@10", "level -1"), ("nDCG(gains={1: 'a'})@10", "must be a finite number"),
     ("nDCG(gain='1=a')@10", "level=gain pairs"), ("SetP(relative=1)", "relative must be bool")],
)
def test_bad_ir_measures_parameters(text, error):
    with pytest.raises(MeasureParamError, match=error):
        parse(text)


#: NTCIREVAL's uncut RBP and ERR lines: ir_measures' names, so ir_measures' meaning (docs/measures.md)
NTCIREVAL_UNCUT_CONFLICTS = {"RBP", "ERR"}


@pytest.mark.parametrize("version", ["190111", "2020"])
def test_every_name_ntcireval_prints_means_its_measure(version):
    """The labels `pyeval ntcireval` prints (NTCIREVAL's own, byte for byte) parse to the measures
    printed under them: same measure, and every parameter the label sets agrees."""
    from pyeval.compat.ntcireval import NtcirevalOptions, printed_measures

    options = NtcirevalOptions(format=version, cutoffs="10,1000", condensed=True, gap=True, rbup=0.99)
    checked = 0
    for label, measure in printed_measures(options, False, 1000):
        name = label.strip().rstrip("=")
        if name in NTCIREVAL_UNCUT_CONFLICTS:
            continue
        if name.endswith("@1000"):  # four digits without a zero: ir_measures' reading unless padded
            name = name.replace("@1000", "@01000")
        parsed = parse(name)
        assert parsed.name == measure.name, (name, str(parsed), str(measure))
        defaults = {p.name: p.default for p in parsed.definition.params}
        for key, value in parsed.values:
            if value != defaults[key]:
                assert measure[key] == value, (name, key)
        checked += 1
    assert checked > 20


def test_every_column_ndeval_prints_means_its_measure():
    from pyeval.compat.ndeval import NdevalOptions, columns

    for column, measure in columns(NdevalOptions()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MeasureNameWarning)  # ERR-IA: ndeval's, with a warning
            parsed = parse(column)
        # the drop-in's own settings: ndeval's 1/N weights and quirks, which a name does not carry
        own = ("probs", "ndeval_quirks")
        assert parsed.name == measure.name, column
        assert [kv for kv in parsed.values if kv[0] not in own] == [kv for kv in measure.values if kv[0] not in own]


#: every measure spelling ir_measures' own tests use (tests/fixtures/README.md)
IR_MEASURES_TEST_SPELLINGS = [
    tuple(line.split("\t")) for line in
    (Path(__file__).parents[1] / "fixtures" / "ir_measures" / "test-spellings.tsv").read_text().splitlines()
    if not line.startswith("#")
]


@pytest.mark.parametrize("kind,text", IR_MEASURES_TEST_SPELLINGS)
def test_every_spelling_of_ir_measures_tests_parses_as_ir_measures_reads_it(kind, text):
    """Issue 32: `@` overrides the same parameter in (...) as in ir_measures (``nDCG(dcg="exp-log2",
    cutoff=20)@10`` is nDCG@10 with exp-log2), trec_eval spellings reach pyeval.parse_measure,
    ``set_F.1.0,0.5,2.4`` is three SetF as ir_measures.parse_trec_measure makes it. A spelling
    pyeval refuses (a required cutoff missing: ``P``, ``IPrec(rel=2)``) is one ir_measures cannot
    compute either, and the refusal is a pyeval error."""
    import pyeval
    from pyeval.measures import parse_measures

    ir_measures = pytest.importorskip("ir_measures")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MeasureNameWarning)
        if kind == "trec":
            expected = [parse(str(m)) for m in ir_measures.parse_trec_measure(text)]
            if text != "official":  # trec_eval 10's official set also holds gm_map (docs/trec_eval.md)
                assert parse_measures(text) == expected
            else:
                assert set(expected) <= set(parse_measures(text))
            return
        theirs = ir_measures.parse_measure(text)
        try:
            ours = pyeval.parse_measure(text)
        except (MeasureNameError, MeasureParamError):
            qrels, run = [ir_measures.Qrel("1", "a", 1)], [ir_measures.ScoredDoc("1", "a", 1.0)]
            with pytest.raises(Exception):  # noqa: B017 (ir_measures raises several kinds)
                ir_measures.calc_aggregate([theirs], qrels, run)
            return
        assert ours == parse(str(theirs))


@pytest.mark.parametrize("text", ["set_F.x", "utility.1,2", "rbp.p=x"])
def test_bad_trec_eval_parameters_are_pyeval_errors(text):
    import pyeval
    from pyeval.errors import TrecEvalError

    with pytest.raises(TrecEvalError):
        pyeval.iter_calc([text], [("1", "a", 1)], [("1", "a", 1.0)]).__next__()


@pytest.mark.parametrize(
    "text,error,message",
    [
        ("nDCG@", MeasureNameError, r"cannot parse measure 'nDCG@': write nDCG@K with K a positive integer"),
        ("P@", MeasureNameError, r"write P@K with K a positive integer \(e\.g\. P@10\)"),
        ("nDCG@1O", MeasureNameError, r"write nDCG@K with K a positive integer .*; did you mean nDCG@10\?"),
        ("P(rel=2)@x", MeasureNameError, r"write P@K with K a positive integer"),
        ("IPrec@", MeasureNameError, r"write IPrec@K with K a number in \[0, 1\]"),
        ("AP@@5", MeasureNameError, r"write NAME, NAME@K or NAME\(param=value, \.\.\.\)@K"),
        ("nDCG(gain=)", MeasureNameError, r"write NAME, NAME@K"),
        ("ndcg_cut10", UnknownMeasureError, r"unknown measure 'ndcg_cut10'; did you mean nDCG@10 \(trec_eval ndcg_cut_10\)\?"),
        ("ndcg_ct_10", UnknownMeasureError, r"did you mean nDCG@10 \(trec_eval ndcg_cut_10\)"),
        ("map_cut5", UnknownMeasureError, r"did you mean AP@5 \(trec_eval map_cut_5\)"),
        ("iprec_at_recall0.5", UnknownMeasureError, r"did you mean IPrec@0\.5 \(trec_eval iprec_at_recall_0\.5\)"),
        ("recip_rnk", UnknownMeasureError, r"did you mean trec_eval's recip_rank\?"),
    ],
)
def test_errors_say_the_expected_form_and_the_nearest_names(text, error, message):
    """A measure string that does not parse names the form it should take; a near-miss of a
    trec_eval spelling names the measure it would be (``ndcg_cut10`` said 'illegal gain')."""
    import pyeval
    from pyeval.measures import parse_measures

    with pytest.raises(error, match=message):
        pyeval.parse_measure(text)
    with pytest.raises(error, match=message):
        parse_measures(text)


def test_trec_evals_own_syntax_keeps_its_own_errors():
    """``ndcg.x`` is trec_eval's syntax: its complaint stays trec_eval's."""
    from pyeval.errors import TrecEvalError
    from pyeval.measures import parse_measures

    with pytest.raises(TrecEvalError, match="illegal gain parameter 'x'"):
        parse_measures("ndcg.x")
