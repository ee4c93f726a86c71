"""Problems as RFC 9457 ``application/problem+json``: a stable ``code``, a title and an actionable detail.

The same codes are used by REST (the body) and GraphQL (``extensions.code``). Every problem names
the request it answers in ``instance`` (``urn:atout:request:<id>``, the id of the ``X-Request-ID``
header and of the request's log lines), and every one is counted (``atout_errors_total``).

This module holds what every layer raises: the codes and :class:`ProblemError`. Answering one over
HTTP is ``service.api.problems``; turning a Redis fault into one is ``service.store.faults``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.base import logs

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
