"""Progress bars of long work (pyeval/progress.py): shown where a human watches (a terminal, a
Jupyter kernel), not when piped; ``progress=True/False`` and ``pyeval --progress/--no-progress``
decide otherwise; in a kernel without ipywidgets tqdm.auto's text bar, without its warning."""
from __future__ import annotations

import io
import sys
import types
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import pyeval
from pyeval import progress as bars

from .conftest import FIXTURES


@pytest.fixture(autouse=True)
def _no_process_default():
    bars.set_default(None)
    yield
    bars.set_default(None)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fake_kernel(monkeypatch) -> None:
    """This process looks like a Jupyter kernel (ipykernel loaded, IPython's shell has a kernel)."""
    shell = type("ZMQInteractiveShell", (), {"kernel": object()})()
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))


def test_shown_where_a_human_watches_and_not_when_piped(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not bars.shown()  # piped or redirected
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert bars.shown()
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    _fake_kernel(monkeypatch)
    assert bars.in_kernel() and bars.shown()  # a notebook: its stderr is no terminal


def test_ipython_without_a_kernel_is_not_a_notebook(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: None  # ipykernel imported, but no kernel runs here
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert not bars.in_kernel() and not bars.shown()


def test_a_call_and_the_process_default_override_where_it_runs(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert not bars.shown(False)
    bars.set_default(False)
    assert not bars.shown() and bars.shown(True)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bars.set_default(True)
    assert bars.shown() and not bars.shown(False)


def test_the_bar_draws_on_stderr_only_when_shown(monkeypatch):
    for progress, drawn in ((True, True), (False, False), (None, False)):
        stream = io.StringIO()
        monkeypatch.setattr(sys, "stderr", stream)
        assert list(bars.bar(range(3), progress=progress, desc="counting", delay=0)) == [0, 1, 2]
        assert ("counting" in stream.getvalue()) is drawn


def test_a_kernel_without_ipywidgets_gets_the_text_bar_and_no_warning(monkeypatch):
    pytest.importorskip("tqdm")
    _fake_kernel(monkeypatch)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets fails
    for name in ("tqdm.auto", "tqdm.autonotebook", "tqdm.notebook"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    from tqdm.std import tqdm as text_bar

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tqdm's "IProgress not found" would fail here
        chosen = bars._tqdm_class()
    assert issubclass(chosen, text_bar) and not any("notebook" in c.__module__ for c in chosen.__mro__)
    for name in ("tqdm.auto", "tqdm.autonotebook"):  # what tqdm does unasked: the warning handled above
        monkeypatch.delitem(sys.modules, name)
    from tqdm import TqdmWarning

    with pytest.warns(TqdmWarning, match="ipywidgets"):
        import tqdm.auto  # noqa: F401
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(bars.bar(range(2), progress=None, desc="in a notebook", delay=0))
    assert "in a notebook" in stream.getvalue()


class _Recorder:
    """A tqdm stand-in that records whether each bar was enabled."""

    made: list[tuple[str | None, bool]] = []

    def __init__(self, iterable=None, *, total=None, desc=None, disable=False, **options):
        self.iterable, self.n = iterable, 0
        _Recorder.made.append((desc, not disable))

    def __iter__(self):
        return iter(self.iterable)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.n += n

    def set_description(self, desc):
        pass

    def close(self):
        pass


@pytest.fixture
def recorder(monkeypatch):
    _Recorder.made = []
    monkeypatch.setattr(bars, "_tqdm_class", lambda: _Recorder)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    return _Recorder.made


@pytest.mark.parametrize("progress, enabled", [(True, True), (False, False), (None, False)])
def test_resampling_tests_take_progress(recorder, progress, enabled):
    from pyeval.resampling import stats

    X = np.random.default_rng(0).random((8, 3))
    indices = np.random.default_rng(1).integers(0, 8, size=(50, 8))
    stats.bootstrap_test(X, indices, progress=progress)
    stats.randomisation_test(X, None, progress=progress)
    assert {desc for desc, _ in recorder} == {"bootstrap", "randomisation"}
    assert {on for _, on in recorder} == {enabled}


def test_loads_of_many_runs_and_campaigns_show_progress(recorder, tmp_path):
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_runs(con, "c", [FIXTURES / "trec_eval" / "results.test"] * 1, names=["a"], progress=True)
    assert recorder == [("read 1 runs", True)]
    recorder.clear()
    pyeval.load_runs(con, "c", [FIXTURES / "trec_eval" / "results.test"], names=["b"])
    assert recorder == [("read 1 runs", False)]  # stderr is no terminal here


def test_the_command_line_option_sets_the_process_default(monkeypatch, tmp_path):
    from pyeval.cli import main

    seen = []
    monkeypatch.setattr(bars, "set_default", seen.append)
    for flags, expected in ((["--progress"], True), (["--no-progress"], False), ([], None)):
        result = CliRunner().invoke(main, ["--db", str(tmp_path / "w.duckdb"), *flags, "list"])
        assert seen.pop() is expected, result.output


def _campaign_of_three_runs():
    """Campaign 'c': trec_eval's qrels, three runs (its run and two of its scores reshuffled), AP stored."""
    import pandas as pd

    con = pyeval.connect()
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    rows = pd.read_csv(FIXTURES / "trec_eval" / "results.test", sep=r"\s+", header=None,
                       names=["query_id", "q0", "doc_id", "rank", "score", "tag"], dtype={"query_id": str})
    rng = np.random.default_rng(3)
    for name in ("a", "b", "c"):
        pyeval.load_run(con, "c", rows[["query_id", "doc_id"]].assign(score=rng.permutation(rows["score"].to_numpy())),
                        name=name)
    pyeval.evaluate(con, "c", ["AP"])
    return con


def test_swap_rates_mem_and_fusion_grids_take_progress(recorder):
    import warnings as warning_filters

    from pyeval import fusion
    from pyeval.resampling import informativeness, swap_rate

    con = _campaign_of_three_runs()
    with warning_filters.catch_warnings():
        warning_filters.simplefilter("ignore")  # little data, overfitting: not what is tested here
        swap_rate(con, "c", ["AP"], trials=10, store=False, progress=True)
        informativeness(con, "c", ["AP"], depth=3, runs_top=2, topics_top=2, store=False, progress=False)
        fusion.evaluate_grid(con, "c", fusion.Recipe("rrf", ("a", "b")), ["k=5,60"], store=False, progress=True)
    assert ("swap rates", True) in recorder and ("MEM AP", False) in recorder
    assert ("fuse 2 points", True) in recorder
