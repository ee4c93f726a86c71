"""What the source says to clients, read from its syntax trees: every problem code produced and every
sentence template raised, for the drift tests of tests/service/test_errors_catalogue.py.

Read from the code rather than listed by hand, so a new ``ProblemError("some_code", …)`` or a new
``Text("…")`` without its French fails the tests without anyone updating a list.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE_TREES = ("service", "schema", "workers")

# Calls of the engine that build an IllegalAction, and the index of their template argument.
ENGINE_TEMPLATE_ARG = {"IllegalAction": 0, "_malformed": 0, "bad": 0, "refuse": 2}

# The places that pass on a code or sentence made elsewhere (an engine error, a problem re-raised
# with a retry hint, a stream's gap): (file, enclosing function) -> why it is allowed.
PASS_THROUGH = {
    ("service/games/core.py", "engine_problem"): "the engine's code and template (both scanned in engine/)",
    ("service/api/graphql/subscriptions.py", "stream_slot"): "a ProblemError re-raised with retry_after",
    ("service/api/graphql/subscriptions.py", "lagged_error"): "a StreamGap's code and Text",
    ("service/base/problems.py", "__init__"): "a plain detail, scanned where its ProblemError is raised",
    ("service/games/core.py", "check_id"): "the resource's 404 code, given by each caller",
}


@dataclass
class Found:
    """Codes and templates found, each with where (``file:line``)."""

    codes: dict[str, list[str]] = field(default_factory=dict)
    templates: dict[str, list[str]] = field(default_factory=dict)
    untranslatable: list[str] = field(default_factory=list)  # a detail or template that is not a literal
    dynamic_codes: list[str] = field(default_factory=list)  # a code that is not a literal

    def code(self, value: str, where: str) -> None:
        self.codes.setdefault(value, []).append(where)

    def template(self, value: str, where: str) -> None:
        self.templates.setdefault(value, []).append(where)


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _string(node: ast.expr) -> str | None:
    """A literal string (implicit concatenation is one Constant), else None."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _functions(tree: ast.AST) -> dict[ast.AST, str]:
    """Every node -> the name of the function it is in ("" at module level)."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            owner[child] = inner
            visit(child, inner)

    visit(tree, "")
    return owner


def _detail_ok(node: ast.expr) -> bool:
    """A problem's detail that can be translated: a literal, a Text made here, or a Text held in a
    name or attribute (made elsewhere with a literal template, which the scan sees there)."""
    if _string(node) is not None or isinstance(node, (ast.Name, ast.Attribute)):
        return True
    return isinstance(node, ast.Call) and _name(node.func) in {"Text", "verbatim"}


def scan_service() -> Found:
    found = Found()
    for tree_name in SERVICE_TREES:
        for path in sorted((ROOT / tree_name).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(), relative)
            owner = _functions(tree)
            for node in ast.walk(tree):
                where = f"{relative}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Dict):  # a stream notice: {"code": "stream_lagged", …}
                    for key, value in zip(node.keys, node.values, strict=True):
                        if key is not None and _string(key) == "code" and _string(value) is not None:
                            found.code(str(_string(value)), where)
                if not isinstance(node, ast.Call):
                    continue
                name = _name(node.func)
                allowed = (relative, owner.get(node, "")) in PASS_THROUGH
                if name in {"ProblemError", "StreamGap"} and node.args:
                    code = _string(node.args[0])
                    if code is not None:
                        found.code(code, where)
                    elif not allowed:
                        found.dynamic_codes.append(where)
                    if len(node.args) > 1:
                        detail = node.args[1]
                        if _string(detail) is not None:
                            found.template(str(_string(detail)), where)
                        elif not _detail_ok(detail):
                            found.untranslatable.append(where)
                elif name == "Text" and node.args:
                    template = _string(node.args[0])
                    if template is not None:
                        found.template(template, where)
                    elif not allowed:
                        found.untranslatable.append(where)
    return found


def scan_engine() -> Found:
    """The engine's IllegalAction templates, and its reason codes (``code=``; the default is
    ``illegal_action``; ``_malformed`` and ``bad`` fix theirs)."""
    found = Found()
    found.code("illegal_action", "engine/errors.py")
    for path in sorted((ROOT / "engine").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if not isinstance(node, ast.Call):
                continue
            where = f"{relative}:{node.lineno}"
            if _name(node.func) == "IllegalAction":
                given = [k.value for k in node.keywords if k.arg == "code"] + node.args[2:3]
                for code in given:
                    if _string(code) is not None:
                        found.code(str(_string(code)), where)
            index = ENGINE_TEMPLATE_ARG.get(_name(node.func))
            if index is None or len(node.args) <= index:
                continue
            template = _string(node.args[index])
            if template is not None:
                found.template(template, where)
            elif not (isinstance(node.args[index], ast.Name) and node.args[index].id == "template"):
                found.untranslatable.append(where)  # a wrapper passing its own `template` on is fine
    return found
