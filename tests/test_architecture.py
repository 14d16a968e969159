"""docs/architecture.md and docs/sql-models.md stay true: the generated page is current, the
files the page names exist, the SQL layers read only what earlier steps make, and no module of
pyeval/ imports one that imports it back."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from pyeval.core import sqlfiles
from pyeval.core import stages

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pyeval"

#: Import edges allowed to close a cycle (none: pyeval/ has no import cycle).
PENDING: set[tuple[str, str]] = set()


def test_the_sql_models_page_is_current():
    page = (ROOT / "docs" / "sql-models.md").read_text(encoding="utf-8")
    assert page == sqlfiles.models_page(stages.ADHOC_STAGING), (
        "docs/sql-models.md is out of date: python -m pyeval.core.plan > docs/sql-models.md")
    # every tree of sql/ has its section of the page
    trees = {path.name for path in (ROOT / "sql").iterdir() if path.is_dir()}
    assert trees - set(sqlfiles._TREES) == set()


def test_every_file_the_architecture_page_names_exists():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:pyeval|sql|schema|migrations|tests)/[^`*]*)`", page))
    assert named
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []
    # every tree of sql/ belongs to a step of the flow
    trees = {path.name for path in (ROOT / "sql").iterdir() if path.is_dir()}
    assert {tree for tree in trees if f"`sql/{tree}/" not in page} == set()


def _models():
    return [sqlfiles.model(path) for path in sqlfiles.model_files()]


def test_each_sql_layer_reads_only_what_earlier_steps_make():
    tables = {path.stem for path in sqlfiles.schema_files()}
    views = set(sqlfiles.VIEW_ORDER)
    staged = {m.produces for m in _models() if m.path.startswith("evaluation/") and m.produces}
    for model in _models():
        layer = model.path.split("/")[0]
        if layer == "loaders" and model.writes:
            assert model.writes in tables, model.path
        if layer == "views":
            assert set(model.reads) <= tables | views, model.path
        if layer == "evaluation":
            assert set(model.reads) <= tables | views | staged, model.path
        if layer == "metrics":
            assert set(model.reads) <= staged, model.path


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.Module) -> list[ast.AST]:
    """Import statements that run (those under ``if TYPE_CHECKING:`` do not)."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "__main__" in ast.unparse(child.test):
                continue  # runs only as a script, never on import
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for orelse in child.orelse:
                    visit(orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the pyeval modules it imports (at any depth of its code), packages included
    (importing ``a.b`` runs ``a/__init__.py`` first)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                if not node.level:
                    base = node.module
                elif node.module:
                    base = f"{base}.{node.module}"
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                parts = target.split(".")
                for depth in range(1, len(parts) + 1):  # the packages on the way
                    step = ".".join(parts[:depth])
                    if step in modules and step != name and not name.startswith(step + "."):
                        graph[name].add(step)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if (node, target) in PENDING:
                continue
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_in_pyeval():
    assert _cycle(import_graph()) is None


def test_the_cycle_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_import_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert "pyeval.core.stages" in graph["pyeval.core.evaluation"]
    assert "pyeval.core.plan" in graph["pyeval.diversity"] and "pyeval.core.evaluation" not in graph["pyeval.diversity"]


def test_the_request_and_the_plan_are_below_every_engine():
    """The layers import one way (docs/architecture.md): the engines and the orchestrator read
    the plan and the request; the plan reads only the request, the headers and the registry."""
    graph = import_graph()
    assert {"pyeval.core.plan", "pyeval.core.request"} <= graph["pyeval.core.stages"]
    assert "pyeval.core.plan" in graph["pyeval.engines.spark"]
    assert graph["pyeval.core.plan"] & {"pyeval.core.stages", "pyeval.core.evaluation", "pyeval.core.db"} == set()
    assert graph["pyeval.core.request"] & {"pyeval.core.plan", "pyeval.core.stages", "pyeval.core.evaluation", "pyeval.core.db"} == set()
    assert graph["pyeval.vocabulary"] == set()


#: What the evaluation kernel (pyeval/core/) never imports: the layers built on it.
ABOVE_THE_CORE = ("pyeval.storage", "pyeval.diversity", "pyeval.loaders", "pyeval.drivers", "pyeval.engines")


def _core_imports_above_it(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((module, target) for module, targets in graph.items() if module.startswith("pyeval.core")
                  for target in targets if target.startswith(ABOVE_THE_CORE))


def test_the_core_imports_no_layer_built_on_it():
    """pyeval/core is the closed evaluation kernel: no module of it imports (at module level or
    inside a function) storage, diversity, loaders, drivers or engines."""
    assert _core_imports_above_it(import_graph()) == []


def test_the_core_check_sees_an_import_inside_a_function():
    assert _core_imports_above_it({"pyeval.core.x": {"pyeval.storage.archive"}, "pyeval.measures": {"pyeval.storage"}}) \
        == [("pyeval.core.x", "pyeval.storage.archive")]


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """subpackage of pyeval (``pyeval.core``, ``pyeval.storage``, ...; a top-level module is its
    own node) -> the others its modules import. The package ``pyeval`` itself is no node: it
    names the public API of every subpackage, imported on first use."""
    def node(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else None

    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = node(module)
        if source is None:
            continue
        packages.setdefault(source, set())
        packages[source] |= {t for t in map(node, targets) if t is not None and t != source}
    return packages


def test_no_import_cycle_among_the_subpackages():
    assert _cycle(package_graph(import_graph())) is None


def test_the_package_graph_joins_a_packages_modules():
    graph = {"pyeval.core.a": {"pyeval.storage.b"}, "pyeval.storage.b": {"pyeval.core.c"}, "pyeval.core.c": set(),
             "pyeval": {"pyeval.core.a"}}
    assert package_graph(graph) == {"pyeval.core": {"pyeval.storage"}, "pyeval.storage": {"pyeval.core"}}
    assert _cycle(package_graph(graph)) == ["pyeval.core", "pyeval.storage", "pyeval.core"]
