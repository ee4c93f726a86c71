"""The rule for text shown to other people (player and bot names, a bot's contact), read two ways
from one definition, :func:`refusal`: the server's check (:func:`unsafe_character`, a 422
``invalid_request`` of type ``unsafe_character``) and the JSON Schema ``pattern`` the OpenAPI
models' JSON Schema gives (:func:`display_pattern`), so that a schema-valid name is never refused for
its characters, nor a refused one schema-valid. The OpenAPI document leaves this pattern out and says
the rule in words (service/api/rest/openapi.py, ``portable_patterns``): JavaScript's RegExp compiles it
only with the ``u`` flag, which linters and JS tools leave off.

The pattern lists the allowed code points themselves, computed from :func:`refusal` over the whole
code space with this Python's Unicode tables: a client's regex engine needs no Unicode tables of
its own (``\\p{…}`` classes are not portable, and differ by Unicode version). It is read as JSON
Schema reads a pattern, ECMA-262 with the ``u`` flag: code points of the Basic Multilingual Plane
are ``\\uXXXX`` escapes, the others are written as themselves (``\\u{…}`` is read neither by
Python's ``re`` nor by jsonschema-rs, and a surrogate pair escape means one code point only under
the ``u`` flag). Read without the ``u`` flag (UTF-16 code units), the class does not compile: a
validator must read it as JSON Schema says. Surrogates are not allowed code points, so a lone one
fails the pattern too (the server refuses it before, as a body that is not Unicode)."""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

# Bidirectional embeddings, overrides and isolates: they reorder the text shown around a name.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Format characters a name may keep: the joiners that emoji sequences and some scripts need.
ALLOWED_FORMAT = frozenset("\u200c\u200d")
LAST_CODE_POINT = 0x10FFFF


def refusal(char: str) -> str | None:
    """What kind of character ``char`` is if it may not be shown to other players, or None. Control
    characters (NUL, newlines, escape) corrupt logs and terminals; bidi controls reorder the text
    around the name; other invisible format characters (zero-width space, BOM, tags) and
    unassigned, surrogate or private-use code points let one name pass for another."""
    category = unicodedata.category(char)
    if char in BIDI_CONTROLS:
        return "a bidirectional control"
    if category == "Cc":
        return "a control character"
    if category == "Cf" and char not in ALLOWED_FORMAT:
        return "an invisible format character"
    if category in {"Cs", "Co", "Cn"}:
        return "an unassigned, surrogate or private-use code point"
    return None


def unsafe_character(value: str) -> str | None:
    """Why ``value`` cannot be shown to other players (its first refused character), or None."""
    for index, char in enumerate(value):
        kind = refusal(char)
        if kind is not None:
            return f"{kind} (U+{ord(char):04X}) at position {index + 1}"
    return None


@cache
def allowed_ranges() -> tuple[tuple[int, int], ...]:
    """Every code point :func:`refusal` lets through, as (first, last) ranges."""
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    for point in range(LAST_CODE_POINT + 2):
        allowed = point <= LAST_CODE_POINT and refusal(chr(point)) is None
        if allowed and start is None:
            start = point
        elif not allowed and start is not None:
            ranges.append((start, point - 1))
            start = None
    return tuple(ranges)


def _pattern_char(point: int) -> str:
    return f"\\u{point:04X}" if point <= 0xFFFF else chr(point)


@cache
def display_pattern() -> str:
    """The ECMA-262 (``u`` flag) pattern of a text :func:`unsafe_character` accepts: a class of the
    allowed code points (a negated class of the refused ones would hold both U+D7FF and U+E000,
    which jsonschema-rs, schemathesis' validator, misreads as a range across the surrogates)."""
    members = []
    for first, last in allowed_ranges():
        members.append(
            _pattern_char(first) if first == last else f"{_pattern_char(first)}-{_pattern_char(last)}"
        )
    return f"^[{''.join(members)}]*$"


def _displayable(value: str) -> str:
    reason = unsafe_character(value)
    if reason is not None:
        raise PydanticCustomError("unsafe_character", "must not contain {reason}", {"reason": reason})
    return value


DISPLAY_RULE = (
    "Any text but control characters, bidirectional controls, invisible format characters (the "
    "zero-width joiners excepted) and unassigned, surrogate or private-use code points (Unicode "
    f"{unicodedata.unidata_version}): else 422 invalid_request with type `unsafe_character`."
)
# Every text shown to other people (player and bot names, contacts) is one of these.
DisplayText = Annotated[
    str,
    AfterValidator(_displayable),
    Field(
        description=DISPLAY_RULE, json_schema_extra=lambda schema: schema.update(pattern=display_pattern())
    ),
]
