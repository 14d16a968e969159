"""Diversity measures of NTCIREVAL and the seed papers: I-rec, D- and DIN-measures, D#/DIN#,
P+Q and P+Q#, intent-aware (IA) measures, effective precision.

No formula is repeated here. A D-measure is its ad hoc measure's family SQL over the *global*
staging of a diversity campaign (pyeval/diversity/: per-document gains are the global gains
GG(d) = sum_i Pr(i|q) g_i(d), relevance is GG > 0, the ideal list is every document sorted by
GG); a DIN-measure the same over the DIN global gains (navigational intents give gain only at
their first relevant document). Composite measures name their components (the per-intent values
of an ad hoc measure, I-rec, a D-measure) and a small family combines them:
``sql/metrics/metric_intent_average.sql`` (I-rec, IA, P+Q), ``metric_sharp.sql`` (D#, DIN#,
P+Q#) and ``metric_effective_precision.sql`` (Ef-P, PAny).
Definitions: docs/diversity-measures.md; names: docs/tool-rules.md section 1.3.
"""
from __future__ import annotations

from dataclasses import replace

from . import average_precision, cascade, dcg, gap, ncu, ntcir_dcg, precision, qmeasure  # noqa: F401
from .base import NTCIREVAL_ORDERING, Measure, MeasureDef, Param
from .common import GAIN, REQUIRED_CUTOFF, STAGING_PARAMS
from .names import make
from .registry import lookup, register

D_SEED = ("Sakai, Craswell, Song, Robertson, Dou & Lin, EVIA 2010; Sakai & Song, SIGIR 2011 "
          "(D-measures); NTCIREVAL (T. Sakai) D-NTCIR-eval (gcompute over global gains)")
DIN_SEED = "Sakai, IPSJ JIP 2013 (DIN-measures); NTCIREVAL (T. Sakai) DIN-NTCIR-eval (dinlabel, gcompute)"
IA_SEED = ("Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009 (intent-aware measures); Sakai & Song, "
           "SIGIR 2011; NTCIREVAL (T. Sakai) D-NTCIR-IAeval")

PROBS = Param("probs", str, "given",
              "intent probabilities: given (the campaign's intents as loaded) or the name of a "
              "stored variant of intent_variants (pyeval intents generate/load)")
GAMMA = Param("gamma", float, 0.5, "weight of I-rec: gamma I-rec@l + (1 - gamma) X@l", minimum=0,
              maximum=1)
IREC_DENOM = Param("irec_denom", str, "relevant",
                   "I-rec's denominator: relevant, the intents with a relevant document (n+, "
                   "NTCIREVAL and ndeval); listed, every intent listed for the topic",
                   choices=("relevant", "listed"))
ROUNDING = Param("ntcireval", bool, False,
                 "combine the parts rounded to 4 decimals, as NTCIREVAL's scripts combine printed "
                 "values (D#, DIN#, P+Q# from the printed I-rec and D-measure; IA from the "
                 "printed per-intent values)")
BETA = Param("beta", float, 1.0, "weight of cumulative gain in the blended ratio (NTCIREVAL -beta)",
             minimum=0)

#: ad hoc measures that have a D- and a DIN-version (NTCIREVAL's gcompute set), by family
D_BASES = ("Q", "OMeasure", "PMeasure", "PPlus", "RMeasure", "APntcir", "AP", "RR", "P", "Success",
           "nDCG", "RBP", "JKnDCG", "nCG", "AnCG", "AnDCG", "ERR", "nERR", "EBR", "nEBR", "iRBU",
           "niRBU", "nRBP", "GAP", "nGAP", "NCU")
#: NTCIREVAL's diversity defaults where the ad hoc default is another tool's
D_DEFAULTS = {"stop": "ntcir", "gain_norm": "gmax"}
D_RBP_P = 0.95
#: measures with a D#- and DIN#-version (D-NTCIR-eval and D-NTCIR-eval2)
SHARP_BASES = ("nDCG", "Q", "ERR", "nERR", "EBR", "RBP")
#: measures with an IA version (docs/tool-rules.md section 1.3)
IA_BASES = ("nDCG", "Q", "ERR", "nERR", "GAP", "nGAP", "AP", "JKnDCG", "RR", "P")


def _diversity_params(base: MeasureDef) -> tuple[Param, ...]:
    params = []
    for param in base.params:
        if param.name in STAGING_PARAMS:  # a diversity staging keeps every document
            continue
        if param.name in D_DEFAULTS and D_DEFAULTS[param.name] in (param.choices or ()):
            param = replace(param, default=D_DEFAULTS[param.name])
        if base.name == "RBP" and param.name == "p":
            param = replace(param, default=D_RBP_P)
        params.append(param)
    return tuple(params)


def _no_levels(base: MeasureDef):
    """Relevance thresholds count levels, which global gains do not have."""
    default = base.param("rel").default if any(p.name == "rel" for p in base.params) else None

    def check(values):
        if values.get("rel", default) != default:
            return "rel counts relevance levels; a D- or DIN-measure's relevance is GG > 0"
        return base.check(values) if base.check else None

    return check


def _wrapped(prefix: str, base: MeasureDef, staging: str, what: str, reference: str) -> MeasureDef:
    params = _diversity_params(base)
    return MeasureDef(
        f"{prefix}_{base.name}", base.family, f"{what}: {base.description}", reference,
        params=(*params, PROBS), at=base.at, kind=base.kind or base.name, staging=staging,
        family_params=tuple(p.name for p in params), check=_no_levels(base),
        aliases=(f"{prefix}-{base.name}",), higher_is_better=base.higher_is_better,
        minimum=base.minimum, maximum=base.maximum, ordering=NTCIREVAL_ORDERING,
    )


def _values(measure: Measure, definition: MeasureDef, **extra) -> Measure:
    """The measure of ``definition`` with the parameters of ``measure`` it declares."""
    names = {p.name for p in definition.params}
    return make(definition, **{k: v for k, v in measure.values if k in names}, **extra)


def _sharp_components(d_name: str):
    def components(measure: Measure):
        irec = make(lookup("IRec"), irec_denom=measure["irec_denom"], cutoff=measure["cutoff"])
        part = _values(measure, lookup(d_name))
        return [("irec", "intents", irec), ("measure", part.definition.staging, part)]

    return components


def _ia_components(base: MeasureDef):
    def components(measure: Measure):
        return [("all", "per_intent", _values(measure, base))]

    return components


def _irec_components(measure: Measure):
    return [("all", "per_intent", make(lookup("Success"), cutoff=measure["cutoff"]))]


def _pplusq_components(measure: Measure):
    params = {"gain": measure["gain"], "beta": measure["beta"]}
    return [
        ("inf", "per_intent", make(lookup("Q"), cutoff=measure["cutoff"], **params)),
        ("nav", "per_intent", make(lookup("PPlus"), truncate=measure["cutoff"], **params)),
    ]


def _declare() -> list[MeasureDef]:
    definitions = [
        MeasureDef("IRec", "intent_average",
                   "intent recall: intents with a relevant document in the top l, over the intents "
                   "with a relevant document in the qrels (irec_denom=listed: every listed intent)",
                   "Zhai, Cohen & Lafferty, SIGIR 2003 (subtopic recall); NTCIREVAL (T. Sakai) irec "
                   "(I-rec@l)", params=(IREC_DENOM, REQUIRED_CUTOFF), at="cutoff",
                   staging="intents", components=_irec_components, family_params=("irec_denom",),
                   aliases=("I-rec",), ordering=NTCIREVAL_ORDERING),
        MeasureDef("PplusQ", "intent_average",
                   "P+Q: sum over informational intents of Pr(i|q) Q_i@l plus sum over navigational "
                   "intents of Pr(j|q) P+_j, P+ on the list truncated at l, each on the intent's own "
                   "levels and ideal list", "Sakai, IPSJ JIP 2013 (P+Q); NTCIREVAL DIN-NTCIR-PQeval",
                   params=(GAIN, BETA, PROBS, ROUNDING, REQUIRED_CUTOFF), at="cutoff",
                   staging="intents", components=_pplusq_components,
                   family_params=("probs", "ntcireval"), ordering=NTCIREVAL_ORDERING),
        MeasureDef("EfP", "effective_precision",
                   "effective precision: documents in the top l relevant to an informational intent, "
                   "or the first one relevant to a navigational intent, over l",
                   "Sakai, IPSJ JIP 2013 (Ef-P)", params=(REQUIRED_CUTOFF,), at="cutoff",
                   staging="intents", ordering=NTCIREVAL_ORDERING),
        MeasureDef("PAny", "effective_precision",
                   "precision with a document relevant to at least one intent counted relevant: C(l)/l",
                   "Sakai & Dou, SIGIR 2013 (precision of the U-measure study)",
                   params=(REQUIRED_CUTOFF,), at="cutoff", staging="intents", ordering=NTCIREVAL_ORDERING),
    ]
    for name in D_BASES:
        base = lookup(name)
        definitions.append(_wrapped("D", base, "global", "D-measure (global gains)", D_SEED))
        definitions.append(_wrapped("DIN", base, "din", "DIN-measure (DIN global gains)", DIN_SEED))
    for name in SHARP_BASES:
        for prefix, reference in (("D", D_SEED), ("DIN", DIN_SEED)):
            part = next(d for d in definitions if d.name == f"{prefix}_{name}")
            params = tuple(p for p in part.params if p.name not in ("cutoff", "probs"))
            definitions.append(MeasureDef(
                f"{prefix}sharp_{name}", "sharp",
                f"{prefix}#-{name}: gamma I-rec@l + (1 - gamma) {prefix}_{name}@l",
                reference, params=(*params, PROBS, GAMMA, IREC_DENOM, ROUNDING, REQUIRED_CUTOFF),
                at="cutoff", staging="intents", components=_sharp_components(part.name),
                family_params=("gamma", "ntcireval"), ordering=NTCIREVAL_ORDERING,
            ))
    definitions.append(MeasureDef(
        "PplusQsharp", "sharp", "P+Q#: gamma I-rec@l + (1 - gamma) P+Q@l",
        "Sakai, IPSJ JIP 2013 (P+Q#); NTCIREVAL NEVIAPQ2sharpnev",
        params=(GAIN, BETA, PROBS, GAMMA, IREC_DENOM, ROUNDING, REQUIRED_CUTOFF), at="cutoff",
        staging="intents", components=_sharp_components("PplusQ"),
        family_params=("gamma", "ntcireval"), ordering=NTCIREVAL_ORDERING,
    ))
    for name in IA_BASES:
        base = lookup(name)
        params = _diversity_params(base)
        definitions.append(MeasureDef(
            f"IA_{name}", "intent_average",
            f"intent-aware {name}: sum over intents of Pr(i|q) {name}_i, {name} on the intent's own "
            "levels, gains and ideal list (0 for an intent without relevant documents)",
            IA_SEED, params=(*params, PROBS, ROUNDING), at=base.at, staging="intents",
            components=_ia_components(base), family_params=("probs", "ntcireval"),
            check=base.check, ordering=NTCIREVAL_ORDERING,
        ))
    return definitions


register(*_declare())
