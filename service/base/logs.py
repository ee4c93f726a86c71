"""Structured logs (structlog): one JSON object per line for operators, readable text on a laptop.

Every line logged while a request is served carries its ``request_id`` (the edge middleware sets
it: the client's ``X-Request-ID`` when it is sane, else a fresh one), the same id the response
echoes in ``X-Request-ID`` and a problem+json body names in ``instance``: a client's report of a
failed request leads straight to its log lines.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import MutableMapping
from contextvars import ContextVar
from typing import Any

import structlog

REQUEST_ID_HEADER = b"x-request-id"
REQUEST_ID_PATTERN = re.compile(rb"[A-Za-z0-9._~:+=@/-]{1,128}")
"""An incoming id is kept when it is 1-128 characters of this safe set (UUIDs, hex, base64, a
proxy's ``host:trace``); anything else (too long, spaces, quotes, control characters) is replaced."""

request_id: ContextVar[str] = ContextVar("atout_request_id", default="")


def new_request_id() -> str:
    """A fresh id: 96 random bits as 24 hex characters (unique enough to find one request's lines)."""
    return os.urandom(12).hex()


def incoming_request_id(raw: bytes | None) -> str | None:
    """The client's id when it is sane, else None (a new one is made)."""
    if raw is None or REQUEST_ID_PATTERN.fullmatch(raw) is None:
        return None
    return raw.decode("ascii")


def add_request_id(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: the id of the request being served, on every line logged during it."""
    rid = request_id.get()
    if rid:
        event_dict.setdefault("request_id", rid)
    return event_dict


class CurrentStdout:
    """Standard output as it is when a line is written, not as it was when a logger was first used:
    loggers are cached on first use, and a stream replaced since (a test's captured output, closed
    when that test ends; a supervisor's redirection) must not keep receiving, or failing, their lines."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


def configure(json_logs: bool = True, level: str = "info") -> None:
    numeric = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            add_request_id,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(CurrentStdout()),  # type: ignore[arg-type]
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger
