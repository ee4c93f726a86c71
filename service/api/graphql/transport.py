"""GraphQL over HTTP and WebSocket at /graphql: Strawberry's ASGI app, answering as REST does.

A request that is not GraphQL-shaped (bad JSON, a batch, a mutation over GET, another content type) is
answered with ``application/problem+json``, where Strawberry answers text/plain; JSON is read by the
parser of REST bodies; and an answer whose errors carry a ``retry_after`` says ``Retry-After``.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

import strawberry
from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL

from service.api import docs_pages
from service.api.graphql.errors import code_errors
from service.api.graphql.limits import limits_of
from service.api.graphql.schema import build_schema
from service.api.limits import parse_json
from service.api.problems import language_headers, problem_response
from service.api.ratelimit import Client
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text

RETRY_AFTER: ContextVar[str | None] = ContextVar("graphql_retry_after", default=None)
"""The longest ``retry_after`` among the errors of the GraphQL request being answered (set by
``process_result``, in the request's own task): the HTTP answer carries it as ``Retry-After``."""
HAS_ERRORS: ContextVar[bool] = ContextVar("graphql_has_errors", default=False)
"""Whether the answer holds errors, whose messages are in the request's language: then it says
``Content-Language`` and ``Vary: Accept-Language``, as a problem+json answer does."""


class RefusedJSON(json.JSONDecodeError):
    """A WebSocket message the safe parser refused: Strawberry closes the socket with 4400."""


def http_problem(error: HTTPException) -> ProblemError:
    """Strawberry's plain-text refusals of a request that is not GraphQL-shaped, as problems."""
    reason = error.reason
    if error.status_code == 405:
        return ProblemError("method_not_allowed", "GraphQL answers GET (queries only) and POST.")
    if error.status_code == 404:
        return ProblemError("not_found", "Nothing here: send a GraphQL request with a `query`.")
    if reason == "Unsupported content type":
        return ProblemError(
            "unsupported_media_type",
            "Send the GraphQL request as JSON with `Content-Type: application/json`.",
        )
    if reason == "Unable to parse request body as JSON":
        return ProblemError(
            "malformed_body", 'The body must be a JSON object: {"query": "{ rules { id } }"}.'
        )
    if "not allowed when using GET" in reason:
        return ProblemError(
            "method_not_allowed",
            Text(
                "{operation} must be sent with POST: GET runs queries only.",
                operation=reason.split(" ")[0].capitalize(),
            ),
            headers={"Allow": "POST"},
        )
    if reason in {"Batching is not enabled", "Too many operations"}:
        return ProblemError(
            "invalid_query",
            "Send one GraphQL request per HTTP request: a JSON array (a batch) is not accepted.",
        )
    if reason.startswith("No GraphQL query found"):
        return ProblemError("invalid_query", 'The request has no `query`: send {"query": "…"}.')
    return ProblemError("invalid_query", Text.verbatim(reason))


class AtoutGraphQL(GraphQL[dict[str, Any], None]):
    """Context: the request (or websocket), the Games service and settings. Refusals of requests that
    are not GraphQL-shaped are problem+json (Strawberry answers them as text/plain), and JSON is read
    by the same parser as REST bodies, so deep nesting or a huge integer is a 4xx, never a 500."""

    def __init__(self, schema: strawberry.Schema, settings: Settings) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self.max_json_depth = settings.max_json_depth
        self.max_int_digits = settings.max_int_digits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        RETRY_AFTER.set(None)
        HAS_ERRORS.set(False)
        try:
            response = await self.run(request)
            if (retry := RETRY_AFTER.get()) is not None:
                response.headers["Retry-After"] = retry
            if HAS_ERRORS.get():
                response.headers.update(language_headers())
        except HTTPException as error:
            response = problem_response(http_problem(error), request.url.path)
        except ProblemError as error:
            response = problem_response(error, request.url.path)
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL from the assets this service serves (service/api/docs_pages.py), not from a CDN."""
        return docs_pages.graphiql_page()

    def parse_json(self, data: str | bytes) -> Any:
        return parse_json(data, self.max_json_depth, self.max_int_digits)

    async def parse_http_body(self, request: Any) -> Any:
        """Strawberry reads the body's fields with ``.get``: a body of ``null``, ``1`` or ``"x"`` is
        JSON but not a GraphQL request, and must be a 400, not an AttributeError (a 500)."""
        try:
            return await super().parse_http_body(request)
        except AttributeError:
            raise ProblemError(
                "invalid_query", 'The body must be a JSON object such as {"query": "{ rules { id } }"}.'
            ) from None

    def decode_json(self, data: str | bytes) -> object:
        try:
            return self.parse_json(data)
        except ProblemError as error:
            raise RefusedJSON(error.detail, data if isinstance(data, str) else "", 0) from None

    async def process_result(self, request: Any, result: Any) -> Any:
        code_errors(result)  # errors raised outside the operation hooks too
        HAS_ERRORS.set(bool(getattr(result, "errors", None)))
        hints = [
            int(hint)
            for error in getattr(result, "errors", None) or ()
            if isinstance(hint := (error.extensions or {}).get("retry_after"), int)
        ]
        if hints:  # the HTTP answer says when to retry, as a REST problem would (set in __call__)
            RETRY_AFTER.set(str(max(hints)))
        return await super().process_result(request, result)

    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        return {
            "request": request,
            "response": response,
            "client": Client.of(request),  # whom the rate limits count (service.api.ratelimit)
            "games": request.app.state.games,
            "settings": request.app.state.settings,
        }


def graphql_app(settings: Settings) -> AtoutGraphQL:
    """The /graphql app, its documents bounded by the ``ATOUT_GRAPHQL_*`` settings."""
    return AtoutGraphQL(build_schema(limits_of(settings)), settings)
