"""Every closed vocabulary of pyeval, spelled once: the package, the CLI's choices, the reports
and the engines read them here (tests/test_vocabulary.py ties every CLI choice to them).

Each vocabulary is a tuple of :class:`Term` (a name and what it means); a significance test is
a :class:`SignificanceTest` with its traits. Importing this module imports nothing heavy (no
pandas, numpy or scipy): ``pyeval --help`` reads it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """One word of a vocabulary and what it means."""

    name: str
    meaning: str


def names(vocabulary) -> tuple[str, ...]:
    """The names of a vocabulary, in its order."""
    return tuple(term.name for term in vocabulary)


def lookup(vocabulary, name: str):
    """The term called ``name``; ValueError naming the allowed ones otherwise."""
    for term in vocabulary:
        if term.name == name:
            return term
    raise ValueError(f"must be one of {', '.join(names(vocabulary))}; got {name!r}")


#: ranked_entries' ordering policies (sql/views/ranked_entries.sql)
ORDERINGS = (
    Term("trec", "score desc, docno desc (trec_eval's order)"),
    Term("trec-asc", "score desc, docno asc (pyndeval, ir_measures' judged and compat providers)"),
    Term("rank", "the rank column"),
    Term("file", "file order"),
)

#: Which topics an evaluation scores (sql/evaluation/evaluation_entries.sql)
TOPIC_POLICIES = (
    Term("qrels", "every judged topic; a topic missing from a run scores the measure's empty value (trec_eval -c)"),
    Term("intersection", "the topics the run has"),
)

#: Where the preferences family's judgments come from (pyeval.core.request.EvaluationRequest)
PREFERENCE_SOURCES = (
    Term("qrels", "the campaign's qrels, as preferences (sql/evaluation/evaluation_preferences.sql)"),
    Term("file", "a preference file the caller staged as evaluation_preferences (trec_eval -R prefs)"),
)

#: Engines of ``pyeval evaluate --engine`` (docs/engines.md): each is an object of pyeval/engines/
#: registered with pyeval.core.engine under this name and meaning.
ENGINES = (
    Term("duckdb", "the warehouse's own DuckDB connection"),
    Term("spark", "the metric SQL on a local Spark session (pip install 'pyeval[spark]')"),
)

#: Engines of the resampling commands' ``--engine``
RESAMPLING_ENGINES = (
    Term("numpy", "one process"),
    Term("ray", "the measures' tests sharded over Ray workers (pip install 'pyeval[ray]')"),
)

#: Qrels formats of ``pyeval load qrels --format`` (pyeval/loaders/qrels.py)
QRELS_FORMATS = (
    Term("auto", "found from the file's lines"),
    Term("trec", "topic iteration docno level"),
    Term("trec-diversity", "topic intent docno level"),
    Term("ntcir", "topic docno L<level>"),
    Term("ntcir-diversity", "topic intent docno L<level>"),
)

#: ``pyeval trec_eval -R``: the relevance file's format (trec_eval 10.0)
REL_FORMATS = (
    Term("qrels", "topic iteration docno level"),
    Term("qrels_jg", "topic judgment-group docno level: measures averaged over the groups (*_avgjg)"),
    Term("prefs", "topic jg jsg docno rel_level: preferences (prefs_*)"),
    Term("qrels_prefs", "qrels read as preferences (prefs_*)"),
)

#: Output formats of the commands' ``--format`` (pyeval/output.py)
OUTPUT_FORMATS = (
    Term("table", "aligned text"),
    Term("csv", "comma-separated values"),
    Term("json", "JSON records"),
    Term("markdown", "a Markdown table"),
)

#: How a resampled p-value is counted (pyeval/resampling/stats.py)
P_CONVENTIONS = (
    Term("count", "count/B"),
    Term("plus-one", "(count+1)/(B+1)"),
)

#: Multiple-comparison corrections of the significance tests (pyeval/resampling/stats.py)
CORRECTIONS = (
    Term("none", "raw p-values"),
    Term("holm", "Holm"),
    Term("bh", "Benjamini-Hochberg"),
)

#: How a resampled statistic is compared with the observed one (pyeval/resampling/stats.py)
COMPARISONS = (
    Term("ge", "count replicates with |statistic| >= observed"),
    Term("gt", "count replicates with |statistic| > observed"),
)


@dataclass(frozen=True)
class SignificanceTest:
    """A paired significance test and its traits.

    name: as the CLI and the stored results spell it; label: as reports print it;
    replicates: the kind of replicate set it draws (pyeval/resampling/replicates.py), None for
    a closed-form test; default_b: its default number of replicates (None: closed form);
    corrected: whether ``--correction`` applies to its p-values (Tukey's HSD is family-wise
    already); options: the test options it takes (of ``alpha``, ``tau``, ``method``); recorded:
    the options stored in its settings. A closed-form test's function is the entry of its name
    in pyeval.resampling.significance.CLOSED_FORM_TESTS (it needs numpy and scipy: not here).
    """

    name: str
    label: str
    replicates: str | None
    default_b: int | None
    corrected: bool = True
    options: tuple[str, ...] = ()
    recorded: tuple[str, ...] = ()

    @property
    def closed_form(self) -> bool:
        return self.replicates is None


#: B when none is given: Sakai's 1000 bootstrap samples, JIP 2013's 5000 Tukey permutations,
#: docs/meta-evaluation.md 3's 100,000 sign flips (exact enumeration when 2^n <= B).
SIGNIFICANCE_TESTS = (
    SignificanceTest("bootstrap", "paired bootstrap test", "bootstrap", 1000),
    SignificanceTest("tukey", "randomised Tukey HSD", "permutation", 5000, corrected=False),
    SignificanceTest("randomization", "paired randomisation test", "signflip", 100_000),
    SignificanceTest("t", "paired t-test", None, None, options=("alpha",)),
    SignificanceTest("sign", "sign test", None, None, options=("tau",), recorded=("tau",)),
    SignificanceTest("wilcoxon", "Wilcoxon signed-rank test", None, None, options=("method",)),
)


def significance_test(name: str) -> SignificanceTest:
    """The test called ``name``; ValueError naming the known ones otherwise."""
    return lookup(SIGNIFICANCE_TESTS, name)


#: The significance tests' names, in the CLI's order
TEST_NAMES = names(SIGNIFICANCE_TESTS)


# ---- the other closed choices of the command line (each read by its command; tests/test_vocabulary.py)

#: ``pyeval load runs --run-names``
RUN_NAMES = (Term("tag", "the first line's run tag"), Term("file", "the file name"))
#: ``pyeval export-run --format``
RUN_FILE_FORMATS = (Term("trec", "topic Q0 docno rank score tag lines"),
                    Term("parquet", "the columns query_id, doc_id, score, rank, run_tag"))
#: ``pyeval intents generate --method`` and ``load topics-xml --probs`` (Sakai & Song)
INTENT_PROBABILITIES = (Term("uniform", "1/n"), Term("nonuniform", "the j-th of n intents gets 2^(n-j+1)/sum_k 2^k"))
#: ``pyeval to-traditional --method``
TRADITIONAL_LEVELS = (Term("max", "the highest level over the intents"),
                      Term("count", "the number of intents covered"))
#: ``pyeval to-traditional --negative-as``
NEGATIVE_JUDGMENTS = (Term("unjudged", "dropped"), Term("nonrelevant", "level 0"))
#: ``pyeval compare --format``
REPORT_FORMATS = (Term("markdown", "Markdown"), Term("latex", "LaTeX (booktabs)"))
#: ``pyeval swaprate --sampling``
SWAP_SAMPLING = (Term("disjoint", "disjoint subset pairs (Voorhees-Buckley)"),
                 Term("with_replacement", "bootstrap samples (Soboroff)"))
#: ``pyeval swaprate --rule``
SWAP_RULES = (Term("strict", "exactly one zero difference is a swap too (Sakai 2005)"),
              Term("original", "Voorhees-Buckley's rule"))
#: ``pyeval stability --fuzz``
FUZZ_MARGINS = (Term("relative", "f x max(a, b) (Buckley-Voorhees)"), Term("absolute", "f"))
#: ``pyeval correlate --test``: a significance test, or none
CORRELATION_TESTS = (*SIGNIFICANCE_TESTS, Term("none", "no test"))
#: ``pyeval correlate --matrix``
CORRELATION_COLUMNS = (Term("tau", "Kendall's tau"), Term("tau_b", "Kendall's tau-b"), Term("tau_ap", "tau_AP"),
                       Term("tau_ap_symmetric", "symmetric tau_AP"), Term("agreement", "agreement of significant pairs"))
#: ``pyeval mem --expectation``
MEM_EXPECTATIONS = (Term("exact", "the exact dynamic programme"), Term("paper", "the paper's printed recursion"))
#: ``pyeval mem --solver`` (scipy.optimize methods)
MEM_SOLVERS = (Term("SLSQP", "scipy.optimize SLSQP"), Term("trust-constr", "scipy.optimize trust-constr"))
#: ``pyeval ntcireval --format``: which NTCIREVAL version's measure set and names
NTCIREVAL_VERSIONS = (Term("190111", "NTCIREVAL 190111"), Term("2020", "NTCIREVAL 2020"))
#: ``--format`` of the report commands that also write LaTeX (risk, design, fuse; pyeval/output.py)
REPORT_TABLE_FORMATS = (*OUTPUT_FORMATS, Term("latex", "a LaTeX (booktabs) table"))
#: ``pyeval list --only``: which of its two tables
OVERVIEW_TABLES = (Term("campaigns", "the campaigns and their counts"), Term("runs", "the runs and their counts"))
#: ``pyeval load qrels --kind``: who or what made a judgment set (docs/judgments.md)
JUDGMENT_SET_KINDS = (Term("human", "human assessors"), Term("llm", "an LLM judge"),
                      Term("merged", "merged from other sets"), Term("derived", "derived from other sets"))
#: ``pyeval judgments derive --kind``: the kinds a derived set may be recorded as
DERIVED_SET_KINDS = tuple(term for term in JUDGMENT_SET_KINDS if term.name in ("derived", "merged"))[::-1]
#: ``pyeval judgments derive --how`` (docs/judgments.md, derived sets)
DERIVATIONS = (Term("union", "every judgment of the parents, the precedence rule choosing"),
               Term("fill", "the holes of the first parent filled from the second"),
               Term("binarise", "levels at or above the threshold become 1, the others 0"),
               Term("common", "the documents every parent judged"),
               Term("minus", "the first parent's judgments the second lacks"))
#: ``pyeval judgments derive --rule``: which parent's level a union keeps
UNION_RULES = (Term("first", "the first parent's that judged it"), Term("max", "the highest"),
               Term("min", "the lowest"))
#: ``pyeval judgments compare --on-missing``: runs or topics on one side only
ON_MISSING = (Term("error", "refuse"), Term("warn", "compare the common ones and store a warning"),
              Term("skip", "compare the common ones"))
#: ``pyeval judgments compare --test``: the test whose verdicts are compared across sets
AGREEMENT_TESTS = SIGNIFICANCE_TESTS
#: ``pyeval fuse --test``: tests of a fused run against each input (one pair at a time: no Tukey HSD)
PAIR_TESTS = tuple(test for test in SIGNIFICANCE_TESTS if test.name != "tukey")
#: ``pyeval pool uniques|loo --by``: what leaving out or uniqueness is counted by (docs/pools.md)
POOL_GROUPINGS = (Term("team", "the runs of one team (gloo-eval.pl)"), Term("run", "one run"))
#: ``pyeval fuse --norm-stage``: score normalisation before or after the absent-document rule
NORM_STAGES = (Term("before", "normalise each input's scores, then fill the absent ones"),
               Term("after", "fill the absent ones, then normalise"))
#: ``pyeval fuse --absent``: the score of a document an input did not retrieve
ABSENT_SCORES = (Term("none", "it does not count"), Term("zero", "0"), Term("min", "the input's lowest score"),
                 Term("shared", "ranx bordafuse's unranked points: (c - n + 1) / 2, n the input's list length"))
#: ``pyeval fuse --tie-order``: the fused run's order among equal scores
TIE_ORDERS = (Term("docno-desc", "docno descending (trec_eval's)"), Term("docno-asc", "docno ascending"))
#: ``pyeval risk --se``: the standard deviation's divisor (n or n - 1)
SE_CONVENTIONS = (Term("population", "divide by n"), Term("sample", "divide by n - 1"))
#: ``pyeval design --design`` (Sakai, topic set size design)
DESIGNS = (Term("paired-t", "paired t-test power"), Term("anova", "one-way ANOVA power"),
           Term("ci", "confidence interval width"))
#: ``pyeval design --variance``: the residual variance estimate
VARIANCE_METHODS = (Term("two-way", "two-way ANOVA without replication"), Term("one-way", "one-way ANOVA"))
#: ``pyeval risk --alpha``, ``compare --risk-alpha``: the largest risk weight alpha (losses weigh
#: 1 + alpha; a larger one only makes weighted losses overflow: --alpha 1e308 gave infinities)
MAX_RISK_ALPHA = 1000.0
#: ``pyeval design``: the largest topic set size searched (and --g-study's largest topic count)
MAX_DESIGN_TOPICS = 100_000
#: ``pyeval design --method``: exact noncentral distributions or normal approximations
#: ``pyeval repro --kind`` (repro_experiments.kind): the same collection or another (docs/reproducibility.md)
REPRO_KINDS = (Term("reproducibility", "same collection: paired t-test; KTU, RBO and RMSE too"),
               Term("replicability", "another collection: unpaired t-test; ER and DeltaRI"))
DESIGN_METHODS = (Term("exact", "noncentral t and F"), Term("normal", "normal approximations"))
#: generated answers (docs/rag.md): a nugget's importance, as nuggetizer writes it
NUGGET_IMPORTANCE = (Term("vital", "an answer must state it"), Term("okay", "good to state"))
#: who wrote a nugget (``pyeval load nuggets --creator``)
NUGGET_CREATORS = (Term("human", "assessors"), Term("llm", "a language model (nuggetizer)"))
#: an assignment's label: does the answer support the nugget (nuggetizer's assignment)
NUGGET_LABELS = (Term("support", "fully supports it"), Term("partial_support", "partially supports it"),
                 Term("not_support", "does not support it"))
#: a citation support label: does the cited document support the sentence (TREC RAG 2025)
SUPPORT_LABELS = (Term("full", "fully supports it"), Term("partial", "partially supports it"),
                  Term("none", "does not support it"))
#: ``pyeval load nuggets|answers|assignments|support --format``: how the file is read
ANSWER_FILE_FORMATS = (Term("auto", "JSON lines when its first line is a JSON object, else TSV"),
                       Term("jsonl", "JSON lines (nuggetizer's or TREC RAG's)"),
                       Term("tsv", "tab-separated values with a header line"))
