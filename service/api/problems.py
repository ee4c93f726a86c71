"""Problems over HTTP: the problem+json answer of a :class:`service.base.problems.ProblemError`,
counted by code (``atout_errors_total``), and GraphQL errors coded and named the same way."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLError
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.base.counters import count_error
from service.base.problems import CODES, PROBLEM_JSON, ProblemError, request_instance


def problem_response(
    error: ProblemError, instance: str | None = None, headers: Mapping[str, str] | None = None
) -> Response:
    count_error("rest", error.code if error.code in CODES else "other")
    # A problem says how things stood at that moment (a refused token, a missing game, a full server):
    # never stored, so that no cache answers with it later (404 and 405 are cacheable by default).
    headers = {"Cache-Control": "no-store", **error.headers, **(headers or {})}
    if error.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return ProblemResponse(
        error.to_dict(instance), status_code=error.status, media_type=PROBLEM_JSON, headers=headers
    )


class ProblemResponse(JSONResponse):
    """A problem body in ASCII JSON: a detail may quote the client's input, and input Python could
    decode but not encode (a lone surrogate) must never turn a 4xx into a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


async def handle_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProblemError)
    return problem_response(exc, request.url.path)


def observe_graphql_errors(result: Any) -> None:
    """Count every error of a GraphQL result by its ``extensions.code`` and name the request in its
    ``extensions.instance``, as a problem+json body does (errors are coded first)."""
    instance = request_instance()
    for error in getattr(result, "errors", None) or ():
        extensions = error.extensions
        if extensions is None:
            extensions = error.extensions = {}
        code = extensions.get("code")
        count_error("graphql", code if code in CODES else "other")
        if instance and "instance" not in extensions:
            extensions["instance"] = instance


def invalid_request(exc: ValidationError) -> ProblemError:
    issues = [
        {
            "loc": [str(p) if not isinstance(p, int) else p for p in e["loc"]],
            "msg": e["msg"],
            "type": e["type"],
        }
        for e in exc.errors(include_url=False, include_context=False, include_input=False)
    ]
    first = issues[0]
    where = ".".join(str(p) for p in first["loc"]) or "body"
    return ProblemError("invalid_request", f"{where}: {first['msg']}", errors=issues)


# graphql-java's extended error types, for clients that sort errors by class
CLASSIFICATION = {401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND"}


def problem_error(error: ProblemError) -> GraphQLError:
    """The REST problem as a GraphQL error: ``extensions.code`` is the same stable code, and a retry
    hint is ``extensions.retry_after`` (seconds) and the HTTP answer's ``Retry-After``."""
    classification = CLASSIFICATION.get(
        error.status, "BAD_REQUEST" if error.status < 500 else "INTERNAL_ERROR"
    )
    extensions = {"code": error.code, "status": error.status, "classification": classification, **error.extra}
    retry = error.headers.get("Retry-After")
    if retry is not None:
        extensions.setdefault("retry_after", int(retry))
    return GraphQLError(error.detail, extensions=extensions)
