"""pyeval in a real Jupyter kernel without ipywidgets (issue 38): DuckDB starts there with its
progress bar off and refuses to set it, which made every ``pyeval.connect``, ``calc_aggregate``
and ``evaluate`` fail as "not a DuckDB warehouse". A notebook is executed by nbclient in an
ipykernel whose ``import ipywidgets`` fails, whatever this environment has installed."""
from __future__ import annotations

import json

import pytest

import pyeval

from .conftest import FIXTURES

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"


def _outputs(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.get("output_type") == "stream")


def test_connect_evaluate_and_calc_aggregate_work_in_a_kernel_without_ipywidgets(tmp_path, monkeypatch):
    shim = tmp_path / "shim" / "ipywidgets"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('ipywidgets is hidden from this kernel')\n")
    monkeypatch.setenv("PYTHONPATH", str(shim.parent))  # the kernel's process inherits it
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
