"""The service in layers (issue 20), checked on the code as it is: no import cycle anywhere in the
four packages, no import inside a function body in ``service/`` (but an optional dependency, named so
in a comment on its line), and no module of ``service/`` over 450 lines. The layers themselves (no
upward import) are import-linter's contracts in ``pyproject.toml``, run by ``make lint`` and here."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "schema", "workers", "service")
MAX_LINES = 450
OPTIONAL = "optional dependency"


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every import cycle among the modules of ``graph`` (one per strongly connected group): Tarjan's
    algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_of_the_four_packages_is_in_an_import_cycle() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(module)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    graph.add_import(importer="a.d", imported="a.b")
    assert cycles(graph) == [["a.b", "a.c"]]


def test_the_layer_contracts_hold() -> None:
    linted = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], cwd=ROOT, capture_output=True, text=True
    )
    assert linted.returncode == 0, linted.stdout[-3000:]
    assert "Contracts: 2 kept, 0 broken." in linted.stdout


def service_modules() -> list[Path]:
    return sorted((ROOT / "service").rglob("*.py"))


def test_no_import_inside_a_function_of_the_service_but_an_optional_dependency() -> None:
    """An import written inside a function hides an upward dependency (or a cycle) from the contracts."""
    hidden = []
    for path in service_modules():
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, (ast.Import, ast.ImportFrom))
                        and OPTIONAL not in lines[inner.lineno - 1]
                    ):
                        hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno}: {ast.unparse(inner)}")
    assert hidden == []


def test_no_module_of_the_service_is_over_450_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in service_modules()
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
