"""The endpoint list of docs/apps.md, generated from the committed OpenAPI document
(openapi/openapi.json): ``python -m service.api.rest.endpoint_doc docs/apps.md`` rewrites the block
between ``<!-- endpoints:begin -->`` and ``<!-- endpoints:end -->`` (``make openapi`` runs it;
tests/atout/test_guide_apps.py fails when the page drifts).

Generated rather than written because a hand-kept list goes stale the day an operation is added or
its ``security`` changes, and "which credential goes with which call" is the question a newcomer asks
first: each row names the credential kinds the operation's ``security`` takes, as the server enforces
them (tests/service/test_auth_enforced.py). It reads the committed document, not the live app, so the
page follows the contract the clients are generated from.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT = ROOT / "openapi" / "openapi.json"
BEGIN = "<!-- endpoints:begin -->"
END = "<!-- endpoints:end -->"
METHODS = ("get", "post", "put", "patch", "delete")
NO_CREDENTIAL = "none"
"""Said of an operation whose ``security`` holds ``{}`` (it also answers a call without a credential),
or is empty (it reads no credential at all)."""


def credentials(operation: dict[str, Any]) -> str:
    """The credential kinds an operation takes, in the document's order: ``none`` first when it
    answers without one (``{}`` in its ``security``, or no ``security`` requirement at all)."""
    requirements: list[dict[str, Any]] = operation.get("security", [])
    kinds = [f"`{name}`" for requirement in requirements for name in requirement]
    if not requirements or {} in requirements:
        kinds.insert(0, NO_CREDENTIAL)
    return ", ".join(kinds)


def cell(text: str) -> str:
    """``text`` as one Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", "\\|").replace("\n", " ")


def rows(document: dict[str, Any]) -> dict[str, list[str]]:
    """Each tag of the document (in its declared order) with its operations' table rows, in the
    document's path order."""
    by_tag: dict[str, list[str]] = {tag["name"]: [] for tag in document.get("tags", [])}
    for path, item in document["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            summary = cell(operation.get("summary", ""))
            if operation.get("deprecated"):
                summary = f"*Deprecated.* {summary}"
            row = (
                f"| `{method.upper()}` | `{path}` | `{operation['operationId']}` | {summary} "
                f"| {credentials(operation)} |"
            )
            by_tag.setdefault(operation.get("tags", ["other"])[0], []).append(row)
    return by_tag


def markdown(document: dict[str, Any]) -> str:
    """The endpoint list: one table per tag, each operation's method, path, id, summary and
    credentials."""
    descriptions = {tag["name"]: tag.get("description", "") for tag in document.get("tags", [])}
    parts = [
        "<!-- Generated from openapi/openapi.json by `python -m service.api.rest.endpoint_doc docs/apps.md` "
        "(`make openapi`); do not edit by hand. -->",
    ]
    for tag, lines in rows(document).items():
        if not lines:
            continue
        parts += [
            "",
            f"**{tag}** — {descriptions.get(tag, '')}",
            "",
            "| Method | Path | Operation | Summary | Credentials |",
            "|---|---|---|---|---|",
            *lines,
        ]
    return "\n".join(parts)


def rewrite(page: str, document: dict[str, Any]) -> str:
    """``page`` with the block between its markers replaced by :func:`markdown`."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the page has no block between {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{markdown(document)}\n{END}{tail}"


def load(path: Path = DOCUMENT) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


if __name__ == "__main__":
    page = Path(sys.argv[1])
    page.write_text(rewrite(page.read_text(), load()))
