"""Every closed vocabulary is spelled once (pyeval/vocabulary.py): every choice of the command
line is one of its vocabularies, and the package's own lists are read from it."""
from __future__ import annotations

import subprocess
import sys

import click

from pyeval import vocabulary
from pyeval.core import sqlfiles
from pyeval.vocabulary import names


def _vocabularies() -> dict[str, tuple[str, ...]]:
    return {name: names(value) for name, value in vars(vocabulary).items()
            if name.isupper() and isinstance(value, tuple) and value and hasattr(value[0], "name")}


def _choices(command: click.Command, path: str = "pyeval"):
    for param in command.params:
        if isinstance(param.type, click.Choice):
            yield f"{path} {param.name}", tuple(param.type.choices)
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _choices(sub, f"{path} {name}")


def test_every_cli_choice_is_a_vocabulary():
    from pyeval.cli import main

    known = set(_vocabularies().values())
    found = list(_choices(main))
    assert len(found) > 20
    assert [(where, choices) for where, choices in found if choices not in known] == []


def test_the_package_reads_its_lists_from_the_vocabularies():
    from pyeval.core import evaluation
    from pyeval.engines import EVALUATION_ENGINES, RESAMPLING_ENGINES
    from pyeval.loaders.qrels import QRELS_FORMATS, QRELS_LAYOUTS
    from pyeval.measures.trec_eval_names import PREFERENCE_FORMATS
    from pyeval.resampling import replicates, stats
    from pyeval.resampling.significance import DEFAULT_REPLICATES, TESTS

    assert evaluation.ORDERINGS == names(vocabulary.ORDERINGS)
    assert evaluation.TOPIC_POLICIES == names(vocabulary.TOPIC_POLICIES)
    assert EVALUATION_ENGINES == names(vocabulary.ENGINES)
    assert RESAMPLING_ENGINES == names(vocabulary.RESAMPLING_ENGINES)
    assert QRELS_FORMATS == ("auto", *QRELS_LAYOUTS)
    assert set(names(vocabulary.REL_FORMATS)) == {"qrels", "qrels_jg", *PREFERENCE_FORMATS}
    assert tuple(stats.CORRECTIONS) == names(vocabulary.CORRECTIONS)
    assert stats.COMPARISONS == names(vocabulary.COMPARISONS)
    assert TESTS == names(vocabulary.SIGNIFICANCE_TESTS)
    assert DEFAULT_REPLICATES == {"bootstrap": 1000, "tukey": 5000, "randomization": 100_000}
    ranked = sqlfiles.read("views/ranked_entries.sql")
    assert all(f"'{ordering}'" in ranked for ordering in names(vocabulary.ORDERINGS))


def test_each_significance_test_is_one_entry_and_one_function():
    from pyeval.resampling import replicates
    from pyeval.resampling.significance import CLOSED_FORM_TESTS

    closed = [test.name for test in vocabulary.SIGNIFICANCE_TESTS if test.closed_form]
    assert list(CLOSED_FORM_TESTS) == closed
    for test in vocabulary.SIGNIFICANCE_TESTS:
        if test.closed_form:
            assert callable(CLOSED_FORM_TESTS[test.name]), test.name
            assert test.default_b is None
        else:
            assert test.replicates in replicates.PURPOSES and test.default_b > 0, test.name
        assert set(test.recorded) <= set(test.options) <= {"alpha", "tau", "method"}


def test_importing_the_vocabularies_imports_nothing_heavy():
    code = ("import sys; import pyeval.vocabulary, pyeval.core.request, pyeval.core.plan; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
