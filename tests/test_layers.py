"""The package's layers: data -> fit -> trace -> numbers -> figures -> export -> app. A
module imports only from its own layer or those before it, only explorer/app imports
Streamlit, there is no import circle, and no JavaScript sits in a Python string."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "explorer"
TESTS = PACKAGE.parent / "tests"
# the order of the flow; a top-level module not named here is the engine's (layer 0)
# notebook: the widget, a front end beside the lesson file (export), below the app;
# browser: the front ends' shared modules (no Python imports), below all three
LAYERS = {"browser": 1, "numbers": 1, "figures": 2, "export": 3, "notebook": 3, "app": 4,
          "__main__": 5, "process": 5}
# what may import Streamlit: the app, and the launcher that runs it as a server
STREAMLIT_USERS = ("explorer.app", "explorer.process")


def modules() -> dict[str, Path]:
    return {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts): p
            for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else 0


def imports(module: str, path: Path) -> set[str]:
    """The explorer modules (and third-party top-level names) ``module`` imports."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found.add(name)
            # "from . import x" names a module when x is one
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return found


ALL = modules()


@pytest.mark.parametrize("module", sorted(ALL))
def test_a_module_imports_no_higher_layer(module):
    mine = layer(module)
    for name in imports(module, ALL[module]):
        if name in ALL:
            assert layer(name) <= mine, f"{module} (layer {mine}) imports {name}"


@pytest.mark.parametrize("module", sorted(ALL))
def test_only_the_app_and_its_launcher_import_streamlit(module):
    uses = any(n == "streamlit" or n.startswith("streamlit.")
               for n in imports(module, ALL[module]))
    assert not uses or module.startswith(STREAMLIT_USERS), module


def test_no_import_circle():
    graph = {m: {n for n in imports(m, p) if n in ALL and n != m} for m, p in ALL.items()}
    # a package's __init__ re-exports its modules: an edge from a module to its own
    # package is an import of a sibling through it, not a circle
    for m in graph:
        graph[m] = {n for n in graph[m] if not m.startswith(n + ".")}
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph[m]:
            assert state.get(n) != "open", " -> ".join(path + [n])
            if n not in state:
                visit(n, path + [n])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


def test_no_javascript_in_python_strings():
    pattern = re.compile(r"\b(function\s*\(|=>\s*\{|document\.|window\.)")
    for module, path in ALL.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not pattern.search(node.value), f"JavaScript in {module}"


def test_modules_stay_readable():
    # tree.py is one idea (scikit-learn's tree builder) and may be longer
    for module, path in ALL.items():
        if module != "explorer.tree":
            assert len(path.read_text(encoding="utf-8").splitlines()) <= 650, module


def test_every_module_has_its_test_file_or_the_readmes_table_names_one():
    """The lab notes' promise: a module's tests are in ``tests/test_<module>.py``, or
    their table "Modules whose tests go by another name" names the files that hold them."""
    readme = (PACKAGE.parent / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    table = readme.split("Modules whose tests go by another name", 1)[1].split("\n\n##", 1)[0]
    named = {Path(cell).name for row in table.splitlines() if row.startswith("| `")
             for cell in re.findall(r"`([^`]+\.(?:py|js))`", row.split("|")[1])}
    untested = [str(path.relative_to(PACKAGE.parent)) for path in sorted(PACKAGE.rglob("*"))
                if path.suffix in (".py", ".js") and path.name != "__init__.py"
                and not (TESTS / f"test_{path.stem}.py").exists() and path.name not in named]
    assert not untested


def test_the_longest_first_order_names_test_files_that_exist():
    from conftest import LONGEST_FIRST  # the order the test processes are handed files in
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    assert [name for name in LONGEST_FIRST if not (TESTS / name).is_file()] == []
