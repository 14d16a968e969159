"""Plots a researcher would put in a paper: the figure each plot() draws, checked before it is saved."""
from __future__ import annotations

import numpy as np
import pytest

import pyeval
from pyeval.resampling import store
from pyeval.resampling.correlation import correlate

from .resampling.helpers import scored_warehouse


@pytest.fixture
def figures(monkeypatch):
    """The figures plot() functions save (then saved as usual)."""
    saved = []
    original = store.save_figure

    def keep(figure, path, dpi=None):
        saved.append(figure)
        figure.canvas.draw()
        original(figure, path, dpi)

    monkeypatch.setattr(store, "save_figure", keep)
    return saved


def test_rank_plot_has_integer_run_ranks(figures, tmp_path):
    con = scored_warehouse(n=12, m=7)
    correlate(con, "c", ["AP", "nDCG@10"], test=None, store=False).plot(tmp_path / "corr.png")
    axes = figures[0].axes[0]
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert "tau" in axes.get_title()


def test_a_long_correlation_title_is_wrapped_inside_the_figure(figures, tmp_path):
    from .resampling.helpers import grid_matrix, store_matrix

    con = scored_warehouse(n=12, m=7)
    measures = ["AP", "nDCG@10", "P@10", "RR", "P@5", "P@20"]
    for number, measure in enumerate(measures[2:], start=3):
        store_matrix(con, grid_matrix(12, 7, number), measure, evaluation_id=number)
    correlate(con, "c", measures, test=None, store=False).plot(tmp_path / "corr.png")
    figure = figures[0]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    title = figure.axes[0].title.get_window_extent(renderer)
    box = figure.bbox
    assert "\n" in figure.axes[0].get_title()
    assert box.x0 <= title.x0 and title.x1 <= box.x1 and title.y1 <= box.y1


def test_demo_irec_plot_names_every_run_and_fits_the_data(demo_build):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pyeval.demo import demo_diversity

    captured = []
    real_savefig = matplotlib.figure.Figure.savefig

    def capture(figure, *args, **kwargs):
        captured.append(([t.get_text() for t in figure.axes[0].texts], figure.axes[0].get_xlim(),
                         figure.axes[0].get_ylim()))
        return real_savefig(figure, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matplotlib.figure.Figure, "savefig", capture)
        evaluation = demo_diversity(demo_build.path, demo_build.path.with_name("irec-test.png"))
    plt.close("all")
    texts, (x_low, x_high), (y_low, y_high) = captured[0]
    run_labels = [t for t in texts if not t.startswith("D#")]
    wide = evaluation.wide()
    # the real runs by name, the simulated ones by number (sim07 is "07")
    assert sorted(run_labels) == sorted(r if r.startswith("indri") else r.removeprefix("sim") for r in wide.index)
    # tight axes: the data span most of each axis (the old plot left 70 % of [0, 1]^2 empty)
    assert (wide["IRec@10"].max() - wide["IRec@10"].min()) / (x_high - x_low) > 0.7
    assert (wide["D_nDCG@10"].max() - wide["D_nDCG@10"].min()) / (y_high - y_low) > 0.7


def test_mem_plot_draws_y_equals_x(figures, tmp_path, demo_build):
    from pyeval.resampling import informativeness

    con = pyeval.connect(demo_build.path, read_only=True)
    try:
        result = informativeness(con, "web2012-adhoc", ["ERR"], runs_top=4, topics_top=4, store=False)
    finally:
        con.close()
    result.plot(tmp_path / "mem.png")
    axes = figures[0].axes[0]
    lines = [line for line in axes.get_lines() if line.get_label() == "y = x"]
    assert lines and np.allclose(*lines[0].get_data())


def test_mem_plot_gives_unbounded_measures_their_own_axes(figures, tmp_path, demo_build):
    """alpha-DCG (means above 1) is drawn apart from the measures bounded by 1, each panel on its own scale."""
    from pyeval.resampling import informativeness

    con = pyeval.connect(demo_build.path, read_only=True)
    try:
        result = informativeness(con, "web2012", ["ERR-IA"], runs_top=3, topics_top=3, store=False)
    finally:
        con.close()
    result.plot(tmp_path / "mem.png")
    bounded, unbounded = figures[0].axes
    labels = [[text.get_text() for text in axis.get_legend().get_texts()] for axis in (bounded, unbounded)]
    assert any(label.startswith("NRBP") for label in labels[0]) and not any("alpha-DCG" in x for x in labels[0])
    assert any(label.startswith("alpha-DCG") for label in labels[1])
    assert bounded.get_ylim()[1] <= 1.05 and unbounded.get_ylim()[1] > 1
