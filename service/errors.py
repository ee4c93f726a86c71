"""Errors as RFC 9457 ``application/problem+json``: a stable ``code``, a title and an actionable detail.

The same codes are used by REST (the body) and GraphQL (``extensions.code``). Every problem names
the request it answers in ``instance`` (``urn:atout:request:<id>``, the id of the ``X-Request-ID``
header and of the request's log lines), and every one is counted (``atout_errors_total``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service import logs
from service.metrics import count_error, count_redis_error

PROBLEM_JSON = "application/problem+json"
INSTANCE_PREFIX = "urn:atout:request:"

# code -> (HTTP status, title). Codes are part of the API: never rename one.
CODES: dict[str, tuple[int, str]] = {
    "malformed_body": (400, "The request body is not valid JSON"),
    "invalid_request": (422, "The request does not match the expected shape"),
    "missing_token": (401, "A bearer token is required"),
    "invalid_token": (401, "The bearer token is not valid for this game"),
    "admin_required": (403, "Only the administrator may do this"),
    "wrong_seat": (403, "This seat token does not belong to that seat"),
    "game_not_found": (404, "No such game"),
    "not_found": (404, "No such resource"),
    "method_not_allowed": (405, "Method not allowed"),
    "unknown_game": (422, "Unknown game id"),
    "invalid_options": (422, "Invalid game options"),
    "invalid_deal": (422, "Invalid explicit deal"),
    "invalid_seats": (422, "Invalid seat list"),
    "illegal_action": (422, "Illegal action"),
    "idempotency_key_reused": (422, "This Idempotency-Key was used for a different request"),
    "invalid_invite": (403, "The invite code is missing or wrong"),
    "seat_taken": (409, "That seat is already taken"),
    "game_full": (409, "Every seat is taken"),
    "game_not_started": (409, "The game waits for players"),
    "game_over": (409, "The match is over"),
    "game_not_over": (409, "The match is not over yet"),
    "not_your_turn": (409, "It is not your turn"),
    "version_conflict": (409, "The game has moved on"),
    "request_timeout": (408, "The request was not sent in time"),
    "payload_too_large": (413, "The request body is too large"),
    "header_too_large": (431, "The request header is too large"),
    "too_many_connections": (429, "Too many open connections"),
    "client_closed": (499, "The client closed the connection before the answer"),
    "unsupported_media_type": (415, "Unsupported content type"),
    "query_too_complex": (400, "The GraphQL query is too large or too deep"),
    "invalid_query": (400, "The GraphQL request is not a valid document for this schema"),
    "introspection_disabled": (400, "GraphQL introspection is switched off"),
    "rate_limited": (429, "Too many requests"),
    "too_many_streams": (429, "Too many open streams"),
    "stream_lagged": (503, "The stream fell too far behind"),
    "server_closing": (503, "This server is shutting down; reconnect"),
    "stream_window_passed": (410, "The events after this id are no longer kept"),
    "events_expired": (410, "This finished game's events were compacted away"),
    "too_many_games": (429, "Too many open games"),
    "bot_not_found": (404, "No such bot account"),
    "internal_error": (500, "Internal error"),
    "unavailable": (503, "Service unavailable"),
    "store_unavailable": (503, "The game store is unavailable"),
    "server_full": (503, "The server is at capacity"),
}


class ProblemError(Exception):
    """An expected failure that the client can act on."""

    def __init__(
        self, code: str, detail: str, *, headers: Mapping[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(detail)
        self.code = code
        self.status, self.title = CODES[code]
        self.detail = detail
        self.extra = extra
        self.headers = dict(headers or {})  # e.g. Retry-After on a 429 or a 503

    def to_dict(self, instance: str | None = None) -> dict[str, Any]:
        """The problem+json body; ``instance`` is the request's id (``instance`` given here is used
        only outside a request, where no id is bound)."""
        instance = request_instance() or instance
        body: dict[str, Any] = {
            "type": f"https://atout.dev/problems/{self.code}",
            "title": self.title,
            "status": self.status,
            "code": self.code,
            "detail": self.detail,
        }
        if instance:
            body["instance"] = instance
        body.update(self.extra)
        return body


def request_instance() -> str | None:
    """``urn:atout:request:<id>`` for the request being served, None outside one."""
    rid = logs.request_id.get()
    return INSTANCE_PREFIX + rid if rid else None


def problem_response(
    error: ProblemError, instance: str | None = None, headers: Mapping[str, str] | None = None
) -> Response:
    count_error("rest", error.code if error.code in CODES else "other")
    headers = {**error.headers, **(headers or {})}
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


def store_fault(exc: BaseException, operation: str = "request") -> ProblemError | None:
    """The client's answer when Redis fails, or None when ``exc`` is not a Redis fault.

    One place for every path (REST, GraphQL, probes, workers): the answer never carries redis-py's
    message, which names the store's internal host and port. A fault is counted in
    ``atout_redis_errors_total`` under ``operation`` (request, graphql, edge, probe, worker; the
    stream readers and the rate limiter count theirs as streams and rate_limit).
    """
    fault = _fault(exc)
    if fault is not None:
        count_redis_error(operation, exc)
    return fault


def _fault(exc: BaseException) -> ProblemError | None:
    import redis.exceptions as rx

    if isinstance(exc, rx.OutOfMemoryError) or (
        isinstance(exc, rx.ResponseError) and "OOM command not allowed" in str(exc)
    ):
        return ProblemError(
            "server_full",
            "The game store is full and accepts no new data for now; finish or leave a game, or retry later.",
            headers={"Retry-After": "30"},
        )
    if isinstance(exc, rx.MaxConnectionsError):
        return ProblemError(
            "server_full",
            "Every connection to the game store is busy; retry shortly.",
            headers={"Retry-After": "1"},
        )
    transient = ("LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY")
    if isinstance(exc, (rx.ConnectionError, rx.TimeoutError, rx.ReadOnlyError)) or (
        isinstance(exc, rx.ResponseError) and str(exc).startswith(transient)
    ):
        return ProblemError(
            "store_unavailable",
            "The game store cannot be reached right now; retry after the delay in Retry-After (a move "
            "with the same Idempotency-Key, so it is applied at most once).",
            headers={"Retry-After": "2"},
        )
    return None


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
