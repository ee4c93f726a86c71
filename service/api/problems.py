"""Problems over HTTP: the problem+json answer of a :class:`service.base.problems.ProblemError`,
counted by code (``atout_errors_total``), and GraphQL errors coded and named the same way.

An answer is in the request's language (``service.base.languages``, set by the edge from
``Accept-Language``) and says so: ``Content-Language``, and ``Vary: Accept-Language`` for caches.
A validator's message is translated by its pydantic error type where ``service.base.french`` knows it,
else quoted as pydantic wrote it (``errors[].msg`` always is: it is for programs)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from graphql import GraphQLError
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.base import languages
from service.base.counters import count_error
from service.base.french import FRENCH, VALIDATION_KEY
from service.base.problems import CODES, PROBLEM_JSON, ProblemError, request_instance
from service.base.texts import Text, template_fields


def problem_response(
    error: ProblemError, instance: str | None = None, headers: Mapping[str, str] | None = None
) -> Response:
    count_error("rest", error.code if error.code in CODES else "other")
    # A problem says how things stood at that moment (a refused token, a missing game, a full server):
    # never stored, so that no cache answers with it later (404 and 405 are cacheable by default).
    headers = {"Cache-Control": "no-store", **error.headers, **(headers or {}), **language_headers()}
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


def language_headers() -> dict[str, str]:
    """The headers of an answer whose text is in the request's language."""
    return {"Content-Language": languages.language.get(), "Vary": "Accept-Language"}


def invalid_request(exc: ValidationError) -> ProblemError:
    details = exc.errors(include_url=False, include_input=False)
    issues = [
        {
            "loc": [str(p) for p in e["loc"]],  # one type: a list index too is a string
            "msg": e["msg"],
            "type": e["type"],
        }
        for e in details
    ]
    where = ".".join(str(p) for p in issues[0]["loc"]) or "body"
    return ProblemError(
        "invalid_request",
        Text("{where}: {message}", where=where, message=validation_message(details[0])),
        errors=issues,
    )


def validation_message(error: ErrorDetails) -> Text:
    """pydantic's message of one issue: in French from its type and context where
    ``service.base.french.validation`` has the type, else as pydantic wrote it."""
    context = error.get("ctx") or {}
    if error["type"] == "unsafe_character":
        return unsafe_message(str(context.get("reason", "")))
    key = VALIDATION_KEY + error["type"]
    if key in FRENCH and all(name in context for name in template_fields(FRENCH[key])):
        return Text.keyed(key, error["msg"], context)
    return Text.verbatim(error["msg"])


# service.base.french.validation says these four as schema.games.unsafe_character names them
UNSAFE_KINDS = {
    "a bidirectional control": Text("a bidirectional control"),
    "a control character": Text("a control character"),
    "an invisible format character": Text("an invisible format character"),
    "an unassigned, surrogate or private-use code point": Text(
        "an unassigned, surrogate or private-use code point"
    ),
}
_UNSAFE_REASON = re.compile(r"(?P<kind>.+) \(U\+(?P<point>[0-9A-F]{4,6})\) at position (?P<position>[0-9]+)")


def unsafe_message(reason: str) -> Text:
    """The refusal of a display name, "must not contain <reason>", from the English reason of
    ``schema.games.unsafe_character``: its four kinds of character are read back, so that the whole
    reason is said in French too."""
    found = _UNSAFE_REASON.fullmatch(reason)
    if found is None or found["kind"] not in UNSAFE_KINDS:
        return Text("must not contain {reason}", reason=Text.verbatim(reason))
    said = Text(
        "{kind} (U+{point}) at position {position}",
        kind=UNSAFE_KINDS[found["kind"]],
        point=found["point"],
        position=found["position"],
    )
    return Text("must not contain {reason}", reason=said)


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
