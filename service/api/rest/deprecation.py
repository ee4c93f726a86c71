"""Deprecating a REST operation (README, "Versioning and deprecation"): the endpoint table marks it
(:class:`Deprecation` on its ``Op``), the OpenAPI document says ``deprecated: true``, and every answer
of it, problems included, carries ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594) and a ``Link`` to
what replaces it, so that a client's logs show the date long before the operation goes away.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from starlette.requests import Request
from starlette.responses import Response

from service.base.problems import ProblemError

MINIMUM_NOTICE = timedelta(days=180)
"""The least time between an operation's deprecation and its sunset (the README's promise)."""

Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Deprecation:
    """When an operation was (or will be) deprecated, when it may stop working, and where to read
    what replaces it. A sunset closer than :data:`MINIMUM_NOTICE` to the deprecation is refused when
    the table is built, so the promise cannot be broken by an edit."""

    since: datetime
    sunset: datetime
    link: str  # what to use instead: a README anchor, the successor's path

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
