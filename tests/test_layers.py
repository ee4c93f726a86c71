"""The service in layers (issue 20), checked on the code as it is: import-linter's contracts in
``pyproject.toml`` (no upward import between the layers, no import cycle among the modules or
sub-packages of any package, the engine on the standard library alone), also run by ``make lint``;
no import inside a function body in ``service/`` and ``atout/`` (but an optional dependency, named so in
a comment on its line); and no function of either over 60 lines, but the exceptions named below with
their reason (issue 33: a cap on functions, not on modules, so that a module holds one concept whole
instead of being cut in fragments to stay under a line count); no class assembled from more than 3 bases
(issue 33: parts held, not mixed in), with no exception."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION_LINES = 60
LONG_FUNCTIONS = {
    # (module, function): why it stays longer than MAX_FUNCTION_LINES
    ("service/runtime/cli.py", "parser"): "argparse's table of the commands and their flags: one call a "
    "flag, read as a table; split, the table would be scattered",
}
OPTIONAL = "optional dependency"
MAX_BASES = 3


def test_the_layer_contracts_hold() -> None:
    linted = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], cwd=ROOT, capture_output=True, text=True
    )
    assert linted.returncode == 0, linted.stdout[-3000:]
    assert "Contracts: 5 kept, 0 broken." in linted.stdout


def service_modules() -> list[Path]:
    """The service's modules, its RQ jobs and workers (``workers/jobs/``, moved out of ``service/``) and the
    bot authors' toolkit's (``atout/``), held to the same rules."""
    return sorted(
        [
            *(ROOT / "service").rglob("*.py"),
            *(ROOT / "workers" / "jobs").rglob("*.py"),
            *(ROOT / "atout").rglob("*.py"),
        ]
    )


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


def test_no_function_of_the_service_is_over_60_lines_but_the_named_exceptions() -> None:
    """A function a reader takes in at once: past about 60 lines, its parts want names of their own."""
    long = set()
    for path in service_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.add((str(path.relative_to(ROOT)), node.name))
    assert long - set(LONG_FUNCTIONS) == set()
    assert set(LONG_FUNCTIONS) - long == set(), "an exception no longer needed: take it off the list"


def test_no_class_of_the_service_is_assembled_from_more_than_3_bases() -> None:
    """A class holds its parts rather than mixing them in (issue 33): a reader following
    ``store.bots.load_bot(...)`` or ``games.lobby.create(...)`` sees which part answers, where
    ``store.load_bot(...)`` on a class of six bases hid it (``service.store.Store`` holds its six parts,
    ``service.games.Games`` its eleven)."""
    mixed = set()
    for path in service_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and len(node.bases) > MAX_BASES:
                mixed.add((str(path.relative_to(ROOT)), node.name))
    assert mixed == set()
