"""docs/errors.md, generated from the catalogue (``service.base.catalogue``):
``python -m service.base.catalogue_doc > docs/errors.md`` (``make openapi`` runs it;
tests/service/test_errors_catalogue.py fails when the committed file drifts)."""

from __future__ import annotations

import sys

from service.base.catalogue import CATALOGUE, REASONS
from service.base.error_codes import ErrorCode

INTRO = """\
# Errors

<!-- Generated from service/base/catalogue.py by `python -m service.base.catalogue_doc > docs/errors.md`
(`make openapi`); do not edit by hand. -->

Every error of the REST API is an `application/problem+json` body (RFC 9457):

```json
{"type": "/problems/version_conflict", "title": "The game has moved on", "status": 409,
 "code": "version_conflict", "detail": "The game is at version 12: reload the view and decide again.",
 "instance": "urn:atout:request:3f9c2a7e1b4d8c6a0e5f9b21", "current_version": 12}
```

Sort errors by `code`: it is stable (never renamed), the same in GraphQL's `extensions.code`, and
listed below, in the OpenAPI document (the `Problem.code` enum) and in the GraphQL schema (the
`ErrorCode` enum). `title` and `detail` are for people: do not parse them. `instance` names the
request (its `X-Request-ID`, and the server's log lines); quote it when you report a problem.
A 429 or 503 says when to come back in `Retry-After` (GraphQL: `extensions.retry_after`).

**`type`** is `/problems/<code>`, a reference relative to the answer's URL (RFC 9457 allows it): the
server that answered serves that code's entry of this catalogue there, as JSON (`GET
/problems/version_conflict` on your server: `code`, `status`, `retry`, `title`, `title_fr`, `meaning`,
`action`), and the same entry is this page's section of that name (`#version_conflict`). An unknown
code there is a 404 `not_found` problem.

**Languages.** `title` and `detail` are in English, or in French when the request's
`Accept-Language` prefers it (`fr`, `fr-CA`, `fr-CA,fr;q=0.9,en;q=0.8`; weights are honoured, and
anything else is English). The answer says which in `Content-Language`, with
`Vary: Accept-Language`. GraphQL error messages follow the same header (a subscription: the
WebSocket upgrade's); `extensions.code` never changes. Text quoted from a parser or validator
(a JSON syntax error, a GraphQL validation message) stays as that tool wrote it.

**Retry?** `no`: the same request fails the same way until it changes. `yes`: send it again, whole
and promptly. `after Retry-After`: the same request may succeed after the delay. `after reloading`:
read the game again, then decide. `resume`: reconnect the stream as the notice says. `once`: an
unexpected fault; once more with the same `Idempotency-Key`, then report it.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _summary() -> list[str]:
    rows = ["| code | status | title | titre (fr) | retry? |", "| --- | --- | --- | --- | --- |"]
    for entry in CATALOGUE.values():
        title = entry.title + (" (reserved)" if entry.reserved else "")
        rows.append(
            f"| [`{entry.code}`](#{entry.code}) | {entry.status} | {_cell(title)} | {_cell(entry.title_fr)} "
            f"| {entry.retry} |"
        )
    return rows


def _section(entry: ErrorCode) -> list[str]:
    lines = [
        f"### {entry.code}",
        "",
        f"**{entry.status}** — {entry.title} · *{entry.title_fr}* · retry: {entry.retry}",
        "",
        f"- **Means:** {entry.meaning}",
        f"- **Do:** {entry.action}",
    ]
    if entry.reserved:
        lines.append(f"- **Reserved:** {entry.reserved}")
    return [*lines, ""]


def _reasons() -> list[str]:
    rows = [
        "## Reasons of a refused action",
        "",
        "An action or a game the rules refuse carries the engine's `reason` and the docs/rules.md `rule`",
        "it breaks, beside its `code`:",
        "",
        "| reason | code | means |",
        "| --- | --- | --- |",
    ]
    for reason in REASONS.values():
        rows.append(f"| `{reason.reason}` | `{reason.code}` | {_cell(reason.meaning)} |")
    return [*rows, ""]


def markdown() -> str:
    """The whole of docs/errors.md."""
    lines = [INTRO, f"## The {len(CATALOGUE)} codes", "", *_summary(), "", "## Each code", ""]
    for entry in CATALOGUE.values():
        lines += _section(entry)
    lines += _reasons()
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":  # pragma: no cover - the Makefile's `openapi` target
    sys.stdout.write(markdown())
