"""What ``pyeval demo`` shows besides its sections (issue 38): each step announced as it starts
when no progress bar can be drawn (a pipe), and no warning about a measure the user did not ask for.
The demo itself runs end to end in the slow tests (tests/test_cli.py)."""
from __future__ import annotations

import io
import warnings

from pyeval.demo import CONCORDANCE_GOLDS, CONCORDANCE_MEASURES, DemoSteps, registered


def test_each_step_is_announced_before_it_runs_when_no_bar_is_drawn():
    stream = io.StringIO()  # not a terminal: tqdm draws no bar
    steps = DemoSteps(["loading the sample", "NTCIR measures"], stream=stream)
    seen = []
    value, elapsed = steps.run(lambda: seen.append(stream.getvalue()) or 7)
    steps.run(lambda: seen.append(stream.getvalue()))
    steps.close()
    assert value == 7 and elapsed >= 0
    assert seen == ["pyeval demo: step 1/2, loading the sample ...\n",
                    "pyeval demo: step 1/2, loading the sample ...\npyeval demo: step 2/2, NTCIR measures ...\n"]


def test_no_step_lines_without_progress():
    stream = io.StringIO()
    steps = DemoSteps(["loading the sample"], stream=stream, progress=False)
    steps.run(lambda: None)
    steps.write(print, "")
    steps.close()
    assert stream.getvalue() == ""


def test_the_concordance_measures_are_chosen_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ERR-IA's note on its meaning was printed by the demo
        chosen = [registered(spellings) for spellings in {**CONCORDANCE_MEASURES, **CONCORDANCE_GOLDS}.values()]
    assert "ERR_IA@10" in chosen and None not in chosen


def test_the_plots_go_beside_the_warehouse_not_in_the_current_folder():
    from pathlib import Path

    from pyeval.demo import asl_plot_path, irec_plot_path

    out = Path("elsewhere") / "web.duckdb"
    assert asl_plot_path(out) == Path("elsewhere") / "web-asl-curves.png"
    assert irec_plot_path(out) == Path("elsewhere") / "web-irec-dndcg.png"
