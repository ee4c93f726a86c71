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
}

EVERY_ANSWER = ("X-Request-ID",)
BY_STATUS: dict[int, tuple[str, ...]] = {
    401: ("WWW-Authenticate",),  # service.api.problems.problem_response
    429: ("Retry-After",),
    503: ("Retry-After",),
}
RATE_LIMITED = "rate_limited"  # the code whose 429 carries RATE_LIMIT_HEADERS (service.api.ratelimit)


def answer_headers(status: int, codes: tuple[str, ...] = (), own: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``headers`` of an answer with ``status``: every answer's, the status's, those of the
    problem ``codes`` it may hold, and ``own`` (an endpoint's, on its success answer)."""
    names = [*EVERY_ANSWER, *BY_STATUS.get(status, ()), *own]
    if RATE_LIMITED in codes:
        names += RATE_LIMIT_HEADERS
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}
