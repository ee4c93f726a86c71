"""The response headers of the REST answers, declared once: their OpenAPI definitions (the document's
``components/headers``) and which answers carry them. Some go with every answer or with a status
(:func:`answer_headers`); an endpoint names those of its own success answer in its table entry
(``Op.headers``: ``Location`` on a created game, ``Idempotent-Replayed`` on a move), so a header an
endpoint starts sending is declared where the endpoint is. schemathesis checks every answer against
these (its ``response_headers_conformance`` check): a required header missing is a failure."""

from __future__ import annotations

from typing import Any

from service.api.ratelimit import RATE_LIMIT_HEADERS
from service.base.logs import REQUEST_ID_PATTERN

SECONDS = {"type": "integer", "minimum": 0}

HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "description": "The request's id: yours when you sent a sane `X-Request-ID` (1 to 128 of "
        "`A-Za-z0-9._~:+=@/-`), else a fresh one. Problems name it in `instance`; quote it when "
        "reporting a problem.",
        "required": True,
        "schema": {"type": "string", "pattern": f"^{REQUEST_ID_PATTERN.pattern.decode()}$"},
    },
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": SECONDS,
    },
    RATE_LIMIT_HEADERS[0]: {
        "description": "With `rate_limited`: the requests the limit that refused allows in its window.",
        "schema": {"type": "integer", "minimum": 1},
    },
    RATE_LIMIT_HEADERS[1]: {
        "description": "With `rate_limited`: the requests left in that window (0).",
        "schema": SECONDS,
    },
    RATE_LIMIT_HEADERS[2]: {
        "description": "With `rate_limited`: seconds until that window resets.",
        "schema": SECONDS,
    },
    "WWW-Authenticate": {
        "description": "The scheme to authenticate with: a bearer token.",
        "required": True,
        "schema": {"type": "string", "enum": ["Bearer"]},
    },
    "Location": {
        "description": "The path of the game created.",
        "required": True,
        "schema": {"type": "string", "format": "uri-reference", "examples": ["/v1/games/Q90LG7TIwt4Y"]},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this answer is the stored one of an earlier request with the same "
        "`Idempotency-Key` (the move was not played again); absent otherwise. The body says it too "
        "(`replayed`).",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "ETag": {
        "description": "A strong entity-tag of this answer (a game's: its version, what changes without "
        "one, and who asks): send it back as `If-None-Match` to get an empty `304` while it is current.",
        "required": True,
        "schema": {"type": "string", "pattern": '^"[!#-~]*"$', "examples": ['"42-3f2a9c1b0d4e"']},
    },
    "Cache-Control": {
        "description": 'How long a copy may be used (docs/apps.md "Caching"): `no-store` on every '
        "problem, `no-cache` or `private, no-cache` where a copy must be revalidated with its ETag, "
        "`public, max-age=…` on the rules and `immutable` on a finished match's log.",
        "schema": {"type": "string"},
    },
    "Vary": {
        "description": "The request headers the answer depends on: `Authorization` (who asks) on a game, "
        "a view or legal actions, `Accept-Language` on a problem, `Origin` where CORS applies.",
        "schema": {"type": "string"},
    },
    "Content-Language": {
        "description": "The language of a problem's `title` and `detail`: `fr` when `Accept-Language` "
        "prefers French, else `en` (docs/errors.md).",
        "schema": {"type": "string", "enum": ["en", "fr"]},
    },
}

CONDITIONAL = ("ETag", "Cache-Control")
"""The headers of an answer that a client may revalidate: a ``304`` answers an ``If-None-Match``
naming its ETag (service/api/rest/caching.py)."""
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "schema": {"type": "string"},
    "description": "The ETag of your copy (or a list, or `*`): an empty `304 Not Modified` answers while "
    "it is current (the token is checked first).",
}
NOT_MODIFIED = "Not Modified: your copy (the ETag of If-None-Match) is current; no body."

EVERY_ANSWER = ("X-Request-ID",)
BY_STATUS: dict[int, tuple[str, ...]] = {
    401: ("WWW-Authenticate",),  # service.api.problems.problem_response
    429: ("Retry-After",),
    503: ("Retry-After",),
}
PROBLEM = ("Cache-Control", "Content-Language", "Vary")
RATE_LIMITED = "rate_limited"  # the code whose 429 carries RATE_LIMIT_HEADERS (service.api.ratelimit)


def answer_headers(status: int, codes: tuple[str, ...] = (), own: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``headers`` of an answer with ``status``: every answer's, the status's, those of the
    problem ``codes`` it may hold, and ``own`` (an endpoint's, on its success answer)."""
    names = [*EVERY_ANSWER, *BY_STATUS.get(status, ()), *own]
    if status >= 400:  # a problem: never stored, in the language asked (service.api.problems)
        names += [name for name in PROBLEM if name not in names]
    if RATE_LIMITED in codes:
        names += RATE_LIMIT_HEADERS
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}
