"""What the sync and the async client share besides the calls: the service's address, the default
token, the headers of a request and of a stream, the timeouts, the retry policy, and how a retry is
logged and a give-up raised."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from atout.client.errors import ApiError, AtoutError, ConnectionLost
from atout.client.retry import RetryPolicy

log = logging.getLogger("atout.client")
USER_AGENT = "atout-client/1"


def checked_base_url(base_url: str) -> str:
    """``base_url`` without its trailing slash, refused (ValueError) unless it is an http(s) URL with
    a host: a typo fails here, with a sentence, not as a connection error later."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"not an http(s) URL of the service: {base_url!r} (e.g. http://localhost:8000)")
    return base_url.rstrip("/")


@dataclass(frozen=True)
class Session:
    base_url: str
    token: str | None
    retry: RetryPolicy
    timeout: float
    stream_read_timeout: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_url", checked_base_url(self.base_url))

    def headers(self, token: str | None, extra: dict[str, str]) -> dict[str, str]:
        bearer = token if token is not None else self.token
        auth = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return {"Accept": "application/json", "User-Agent": USER_AGENT, **auth, **extra}

    def stream_headers(self, token: str | None, last_event_id: str | None, accept: str) -> dict[str, str]:
        resume = {"Last-Event-ID": last_event_id} if last_event_id else {}
        return {**self.headers(token, resume), "Accept": accept}

    def stream_timeout(self) -> httpx.Timeout:
        """A stream waits for its next frame up to ``stream_read_timeout`` (the server pings SSE every
        15 s): a connection silent for longer is dead, and reconnected."""
        return httpx.Timeout(self.timeout, read=self.stream_read_timeout)

    def note_retry(self, method: str, path: str, error: Exception, attempt: int, delay: float) -> None:
        log.warning(
            "retrying %s %s in %.2f s (try %d failed: %s)",
            method,
            path,
            delay,
            attempt,
            _reason(error),
            extra={
                "atout_retry": {
                    "method": method,
                    "path": path,
                    "attempt": attempt,
                    "delay": delay,
                    "reason": _reason(error),
                }
            },
        )

    def gave_up(self, call: Any, error: Exception, attempt: int) -> AtoutError:
        if isinstance(error, AtoutError):
            return error
        safe = "" if call.safe else " (not sent again: it is not safe to repeat)"
        return _lost(f"{call.method} {call.path}: {_reason(error)} after {attempt} tries{safe}", error)

    def gave_up_stream(self, path: str, error: Exception, attempt: int) -> AtoutError:
        if isinstance(error, ApiError):
            return error
        return _lost(f"GET {path}: {_reason(error)} after {attempt} tries without an event", error)


def _lost(message: str, cause: Exception) -> ConnectionLost:
    lost = ConnectionLost(message)
    lost.__cause__ = cause
    return lost


def _reason(error: Exception) -> str:
    if isinstance(error, ApiError):
        return f"{error.status} {error.code}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
