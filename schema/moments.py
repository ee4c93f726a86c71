"""Moments, one form everywhere (docs/glossary.md, ``*_at``): an RFC 3339 string in UTC
(``2026-12-06T09:21:55Z``), OpenAPI ``format: date-time``, GraphQL ``DateTime``, in REST, the streams'
notices and the webhooks alike.

Why a type of its own: the store keeps a moment as POSIX seconds (a number, or its text in a Redis
hash), and the models are where it becomes the contract's form, once; a client never sees a number it
would have to guess the unit of. Durations are whole seconds in fields named ``*_seconds``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, PlainSerializer, WithJsonSchema


def _from_stored(value: object) -> object:
    """POSIX seconds (a number, or the decimal text a Redis hash holds) as an aware moment; anything
    else is left to pydantic's own ``datetime`` parsing (an RFC 3339 string, a ``datetime``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except ValueError:
            return value
    return value


def in_utc(value: datetime) -> datetime:
    """The moment in UTC, to the millisecond (what a phone's clock shows and every language parses); a
    naive ``datetime`` is taken as UTC already."""
    moment = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def rfc3339(moment: datetime) -> str:
    """``2026-12-06T09:21:55Z``, or ``2026-12-06T09:21:55.123Z`` when the moment has milliseconds."""
    utc = in_utc(moment)
    return utc.isoformat(timespec="milliseconds" if utc.microsecond else "seconds").replace("+00:00", "Z")


Moment = Annotated[
    datetime,
    BeforeValidator(_from_stored),
    AfterValidator(in_utc),
    PlainSerializer(rfc3339, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time", "examples": ["2026-12-06T09:21:55Z"]}),
]
"""A moment: ``datetime`` in the models, an RFC 3339 UTC string (``…Z``) in JSON."""


def seconds_of(moment: datetime | float | None) -> float | None:
    """POSIX seconds of a moment (what the store and the clocks compare), None kept."""
    if moment is None or isinstance(moment, int | float):
        return moment
    return moment.timestamp()
