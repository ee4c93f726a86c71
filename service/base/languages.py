"""The language a request is answered in: English unless its ``Accept-Language`` prefers French.

The edge middleware (``service.api.edge``) reads the header once per request or WebSocket and sets
:data:`language` for everything that runs while it is served, as it sets the request id: a raise
site never needs the request, and a problem's ``title`` and ``detail`` are rendered in the chosen
language only when the answer is written (``service.base.texts``).

The header is read by a small parser of our own (RFC 9110 §12.4.2 and §12.5.4, then RFC 4647 §3.4
lookup), not by a library, because none fits here: Babel's ``Locale.negotiate`` matches a list the
caller has already ordered (it reads no q-values) and installs 33 MB of CLDR data for a 25-line job;
Werkzeug parses q-values but its ``best_match`` takes an exact match of a lower weight over a
prefix match of a higher one (``en-GB,fr;q=0.9`` gives French to someone who asked for English
first). Here each range is tried in order of weight, most specific first: ``fr-CA`` → ``fr``.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import lru_cache

ENGLISH = "en"
FRENCH = "fr"
LANGUAGES = (ENGLISH, FRENCH)
"""What the service speaks; the first is the default (no header, nothing acceptable, ``*``)."""

language: ContextVar[str] = ContextVar("atout_language", default=ENGLISH)

ACCEPT_LANGUAGE_HEADER = b"accept-language"
MAX_RANGES = 32  # a longer list is cut there: its tail could not change an answer in two languages

# language-range [ weight ]: "fr", "fr-CA", "*", each with an optional ";q=0.8" (RFC 9110 qvalue)
_RANGE = re.compile(
    r"\s*(\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)\s*(?:;\s*[qQ]\s*=\s*(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?\s*"
)


def ranges(header: str) -> list[str]:
    """The acceptable language ranges of an ``Accept-Language`` value, most wanted first (by weight,
    then in the order given), lower-cased; malformed items and ``q=0`` (not acceptable) are left out."""
    weighted: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")[:MAX_RANGES]):
        found = _RANGE.fullmatch(item)
        if found is None:
            continue
        weight = float(found.group(2)) if found.group(2) is not None else 1.0
        if weight > 0:
            weighted.append((-weight, position, found.group(1).lower()))
    return [name for _, _, name in sorted(weighted)]


@lru_cache(maxsize=512)
def negotiate(header: str | None) -> str:
    """The language to answer in for an ``Accept-Language`` value (None: no header): the first range
    that one of :data:`LANGUAGES` matches by lookup (``fr-ca`` is tried as ``fr-ca``, then ``fr``);
    ``*`` or no match is English."""
    for wanted in ranges(header or ""):
        if wanted == "*":
            return ENGLISH
        tag = wanted
        while tag:
            if tag in LANGUAGES:
                return tag
            tag = tag.rpartition("-")[0]
    return ENGLISH


def from_header(raw: bytes | None) -> str:
    """:func:`negotiate` of a raw ASGI header value (latin-1, as HTTP headers are)."""
    return negotiate(raw.decode("latin-1") if raw is not None else None)
