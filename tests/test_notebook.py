"""pyeval in a real Jupyter kernel without ipywidgets (issue 38): DuckDB starts there with its
progress bar off and refuses to set it, which made every ``pyeval.connect``, ``calc_aggregate``
and ``evaluate`` fail as "not a DuckDB warehouse". A notebook is executed by nbclient in an
ipykernel whose ``import ipywidgets`` fails, whatever this environment has installed; so is the
tutorial of docs/ (issue 43), its outputs checked against the API's."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import pyeval

from .conftest import FIXTURES

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"


def _outputs(cell) -> str:
    """What the cell printed on stdout (stderr holds progress bars where a load takes long)."""
    return "".join(output.get("text", "") for output in cell.outputs
                   if output.get("output_type") == "stream" and output.get("name") == "stdout")


def _hide_from_kernels(tmp_path, monkeypatch, *packages: str) -> None:
    """Kernels started from now on fail to ``import`` each of ``packages``, whatever this
    environment has installed (a shim first on the PYTHONPATH their process inherits)."""
    for package in packages:
        shim = tmp_path / "shim" / package
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text(f"raise ImportError('{package} is hidden from this kernel')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "shim"))


def test_connect_evaluate_and_calc_aggregate_work_in_a_kernel_without_ipywidgets(tmp_path, monkeypatch):
    _hide_from_kernels(tmp_path, monkeypatch, "ipywidgets")
    warehouse = tmp_path / "w.duckdb"
    cells = [
        "import importlib\n"
        "try:\n    importlib.import_module('ipywidgets')\n    print('ipywidgets importable')\n"
        "except ImportError:\n    print('no ipywidgets')",
        "import duckdb\nprint(duckdb.connect().execute(\"select current_setting('enable_progress_bar')\").fetchall())",
        "import json, pyeval\n"
        f"con = pyeval.connect({str(warehouse)!r})\n"
        f"pyeval.load_qrels(con, 'c', {str(QRELS)!r})\n"
        f"pyeval.load_run(con, 'c', {str(RUN)!r}, name='a')\n"
        "means = pyeval.evaluate(con, 'c', ['AP', 'P@10']).means\n"
        "print(json.dumps(dict(zip(means['measure'], means['value']))))\n"
        "con.close()",
        "print(json.dumps({str(k): v for k, v in pyeval.calc_aggregate(['AP'], "
        "{'q1': {'d1': 1, 'd2': 0}}, {'q1': {'d1': 0.5, 'd2': 0.9}}).items()}))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = [_outputs(cell).strip() for cell in notebook.cells]
    assert shown[0] == "no ipywidgets"
    assert shown[1] == "[(False,)]"  # DuckDB's own default in such a kernel, which it will not change

    expected = pyeval.connect()
    pyeval.load_qrels(expected, "c", QRELS)
    pyeval.load_run(expected, "c", RUN, name="a")
    means = pyeval.evaluate(expected, "c", ["AP", "P@10"], store=False).means
    assert json.loads(shown[2]) == pytest.approx(dict(zip(means["measure"], means["value"])), abs=0, rel=0)
    assert json.loads(shown[3]) == {"AP": 0.5}
    stored = pyeval.connect(warehouse, read_only=True)
    assert stored.execute("select count(*) from evaluations").fetchone() == (1,)
    stored.close()


TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.ipynb"


def _output(cell, kind: str) -> str:
    """The cell's display or result output of MIME type ``kind`` ('' when none)."""
    for output in cell.outputs:
        if output.get("output_type") in ("execute_result", "display_data") and kind in output.get("data", {}):
            return output["data"][kind]
    return ""


def _stderr(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream" and o["name"] == "stderr")


def _cell(notebook, start: str):
    """The code cell whose source starts with ``start``."""
    return next(cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.startswith(start))


@pytest.mark.parametrize("with_ranx", [False, pytest.param(True, marks=pytest.mark.engines)])
def test_the_tutorial_runs_in_a_kernel_without_ipywidgets(tmp_path, monkeypatch, with_ranx):
    """docs/tutorial.ipynb, executed as stored (no outputs) with a first cell that draws bars at
    once: no error, no warning, a text progress bar, HTML tables of the results, and every number
    what the API gives outside the kernel. ranx (numba compiles each typed-dict access on first
    use, some 20 s) is hidden unless the engines tests run."""
    stored = nbformat.read(TUTORIAL, as_version=4)
    assert all(not cell.get("outputs") for cell in stored.cells if cell.cell_type == "code")  # stored clean
    _hide_from_kernels(tmp_path, monkeypatch, "ipywidgets", *(() if with_ranx else ("ranx",)))
    notebook = nbformat.from_dict(json.loads(json.dumps(stored)))
    notebook.cells.insert(0, nbformat.v4.new_code_cell("import pyeval.progress\npyeval.progress.DELAY = 0"))
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell in (cell for cell in notebook.cells if cell.cell_type == "code"):
        assert not re.search(r"warning|Traceback|IProgress", _stderr(cell), re.I), _stderr(cell)
    assert "randomisation" in _stderr(_cell(notebook, "significance = "))  # tqdm's text bar, drawn

    folder = tmp_path / "pyeval-tutorial"
    con = pyeval.connect(folder / "tutorial.duckdb", read_only=True)
    try:
        evaluation = pyeval.evaluate(con, "web2012", ["AP", "nDCG@10", "P@10"], store=False)
        assert _output(_cell(notebook, "evaluation = "), "text/html") == evaluation.wide().round(4)._repr_html_()
        comparison = pyeval.compare(con, "web2012", ["AP", "nDCG@10"], baseline="indri-ql", store=False)
        significance = pyeval.significance(con, "web2012", "AP", "randomization", replicates=20000, store=False)
        significance.test_id = con.execute("select max(test_id) from significance_tests where measure = 'AP' "
                                           "and test = 'randomization'").fetchone()[0]  # what the kernel stored
        from pyeval.query import run_sql

        top = run_sql(con, _cell(notebook, "from pyeval.query").source.split('"""')[1])
    finally:
        con.close()
    for start, result in (("comparison = ", comparison), ("significance = ", significance)):
        cell = _cell(notebook, start)
        assert _output(cell, "text/html") == result._repr_html_()
        assert _output(cell, "text/html").startswith('<table class="dataframe pyeval">')
        assert _output(cell, "text/plain") == repr(result) == result.render()
    assert _output(_cell(notebook, "from pyeval.query"), "text/html") == top._repr_html_()
    assert [o for o in _cell(notebook, "from IPython.display").outputs if "image/png" in o.get("data", {})]
    assert (folder / "means.png").stat().st_size and (folder / "p-values.png").stat().st_size

    in_memory = _cell(notebook, "qrels = ")
    expected = pyeval.calc_aggregate(["AP", "nDCG@10", "P@2"], {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 0}},
                                     {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 0.7, "d4": 0.5}})
    assert ast.literal_eval(_output(in_memory, "text/plain")) == expected
    ranx_cell = _cell(notebook, "try:\n    import ranx")
    if with_ranx:
        assert ast.literal_eval(_output(ranx_cell, "text/plain")) == expected
    else:
        assert "ranx is not installed" in _outputs(ranx_cell)
