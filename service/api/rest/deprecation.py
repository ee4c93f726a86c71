"""Deprecating a REST operation (docs/apps.md, "Versioning"): the endpoint table marks it
(:class:`Deprecation` on its ``Op``), the OpenAPI document says ``deprecated: true``, and every answer
of it, problems included, carries ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594) and a ``Link`` to
what replaces it, so that a client's logs show the date long before the operation goes away.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from service.base.problems import ProblemError

MINIMUM_NOTICE = timedelta(days=180)
"""The least time between an operation's deprecation and its sunset (docs/apps.md's promise)."""

Handler = Callable[[Request], Awaitable[Response]]

DEPRECATION_HEADERS: dict[str, dict[str, Any]] = {
    "Deprecation": {
        "description": "On every answer of a deprecated operation: when it was deprecated, `@<unix time>` "
        "(RFC 9745). Log it: the operation may stop working from its `Sunset`.",
        "required": True,
        "schema": {"type": "string", "pattern": "^@[0-9]+$"},
    },
    "Sunset": {
        "description": "On every answer of a deprecated operation: the HTTP date from which it may stop "
        "working (RFC 8594), at least 180 days after its deprecation.",
        "required": True,
        "schema": {"type": "string"},
    },
    "Link": {
        "description": 'On every answer of a deprecated operation: `<what replaces it>; rel="deprecation"`.',
        "required": True,
        "schema": {"type": "string"},
    },
}
"""The headers :func:`announcing` adds, as the OpenAPI document declares them (``components/headers``)
on every answer of an operation marked ``deprecated: true``."""


@dataclass(frozen=True)
class Deprecation:
    """When an operation was (or will be) deprecated, when it may stop working, and where to read
    what replaces it. A sunset closer than :data:`MINIMUM_NOTICE` to the deprecation is refused when
    the table is built, so the promise cannot be broken by an edit."""

    since: datetime
    sunset: datetime
    link: str  # what to use instead: a docs anchor, the successor's path

    def __post_init__(self) -> None:
        if self.since.tzinfo is None or self.sunset.tzinfo is None:
            raise ValueError("a deprecation's dates are timezone-aware (UTC) datetimes")
        if self.sunset - self.since < MINIMUM_NOTICE:
            raise ValueError(
                f"a sunset comes at least {MINIMUM_NOTICE.days} days after the deprecation "
                f"({self.since:%Y-%m-%d} -> {self.sunset:%Y-%m-%d})"
            )

    def headers(self) -> dict[str, str]:
        """``Deprecation: @<unix seconds>`` (a structured-field date), ``Sunset: <HTTP-date>`` and
        ``Link: <…>; rel="deprecation"``."""
        return {
            "Deprecation": f"@{int(self.since.timestamp())}",
            "Sunset": format_datetime(self.sunset.astimezone(UTC), usegmt=True),
            "Link": f'<{self.link}>; rel="deprecation"',
        }


def announcing(deprecation: Deprecation, handler: Handler) -> Handler:
    """``handler`` whose every answer carries the deprecation's headers: its own answers, and the
    problems it raises (answered by the app's handler of ProblemError, with the error's headers)."""

    async def endpoint(request: Request) -> Response:
        try:
            response = await handler(request)
        except ProblemError as error:
            error.headers = {**deprecation.headers(), **error.headers}
            raise
        for name, value in deprecation.headers().items():
            response.headers.setdefault(name, value)
        return response

    return endpoint


V1_LEGACY = Deprecation(
    since=datetime(2026, 12, 6, tzinfo=UTC),
    sunset=datetime(2027, 6, 30, tzinfo=UTC),
    link="/openapi.json",
)
"""The paths issue 34's v1 contract keeps for older clients (``GET …/actions``: a seat's view holds
its ``legal_actions``): deprecated with it, each answer linking to the document that says what to use."""
