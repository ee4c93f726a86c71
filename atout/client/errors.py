"""What the client raises: a problem the service answered (:class:`ApiError`, with its stable
``code``), a service it could not reach within its retry policy (:class:`ConnectionLost`), and a
stream whose events after the cursor are gone (:class:`StreamResync`).

One base, :class:`AtoutError`, so that a bot program may catch everything the client raises in one
place; the codes are those of docs/errors.md (the catalogue the server answers from), so a program
decides on ``code``, never on a message's words."""

from __future__ import annotations

import json
from typing import Any

import httpx

from schema.games import Problem


class AtoutError(Exception):
    """Anything the Atout client raises (a pydantic ``ValidationError`` aside: a request body that
    is not what the API accepts is refused before it is sent)."""


class ApiError(AtoutError):
    """The service answered with a problem (RFC 9457, ``application/problem+json``).

    ``code`` is the stable problem code (``not_your_turn``, ``rate_limited``, …), ``status`` the HTTP
    status, ``detail`` the server's sentence, ``retry_after`` the seconds of ``Retry-After`` when it
    came with one, ``problem`` the whole typed body (``current_version``, ``rule``, … when present)."""

    def __init__(
        self, status: int, code: str, detail: str, retry_after: float | None, problem: Problem | None
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after
        self.problem = problem


class ConnectionLost(AtoutError):
    """The service could not be reached, or the connection broke, and the retry policy gave up (or
    the request could not be sent again safely: a create or a join without an idempotency key)."""


class StreamResync(AtoutError):
    """A stream's events after the cursor are gone (``stream_window_passed``, ``events_expired``):
    read the state again (the view, ``GET /v1/bots/me``), then follow again after ``last_event_id``."""

    def __init__(self, code: str, detail: str, last_event_id: str | None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.last_event_id = last_event_id


def retry_after_of(response: httpx.Response) -> float | None:
    """The seconds of a ``Retry-After`` header (the service sends whole seconds), or None."""
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def api_error(response: httpx.Response) -> ApiError:
    """The :class:`ApiError` of an answer that is not a success: its problem body typed when it is
    one; otherwise (a proxy's page, an empty body) the status alone, as code ``http_<status>``."""
    problem: Problem | None = None
    try:
        data: Any = json.loads(response.content) if response.content else None
        if isinstance(data, dict) and "code" in data:
            problem = Problem.model_validate(data, extra="ignore")
    except ValueError:
        problem = None
    if problem is None:
        text = response.text[:200] if response.content else response.reason_phrase
        return ApiError(
            response.status_code, f"http_{response.status_code}", text, retry_after_of(response), None
        )
    return ApiError(problem.status, problem.code, problem.detail, retry_after_of(response), problem)
